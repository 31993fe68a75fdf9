import { Type } from 'typebox';
import { Timestamp } from '../sdk/schemas/common.js';

export const ScopeSchema = Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('admin')]);

export const ConnectBody = Type.Object(
  {
    scopes: Type.Array(ScopeSchema, { minItems: 1, maxItems: 3, uniqueItems: true }),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);

export const ConnectParams = Type.Object({ requestId: Type.String({ minLength: 1, maxLength: 100 }) });

const ConnectStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('approved'),
  Type.Literal('denied'),
  Type.Literal('expired'),
]);

export const CreatedConnect = Type.Object({
  requestId: Type.String(),
  status: Type.Literal('pending'),
  approveUrl: Type.String(),
  expiresAt: Timestamp,
});

export const ConnectRequestSchema = Type.Object({
  requestId: Type.String(),
  status: ConnectStatus,
  scopes: Type.Array(ScopeSchema),
  label: Type.Union([Type.String(), Type.Null()]),
  keyLabel: Type.String(),
  createdAt: Timestamp,
  expiresAt: Timestamp,
});
