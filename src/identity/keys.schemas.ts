import { Type } from 'typebox';
import { Timestamp } from '../http/schemas.js';

export const CreateKeyBody = Type.Object({ label: Type.String({ minLength: 1, maxLength: 100 }) });

export const CreatedKey = Type.Object({
  id: Type.String(),
  key: Type.String(),
  label: Type.String(),
  keyPreview: Type.String(),
  workspaceId: Type.String(),
  createdAt: Timestamp,
});

const KeySchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  keyPreview: Type.String(),
  workspaceId: Type.String(),
  createdAt: Timestamp,
  lastUsedAt: Type.Union([Timestamp, Type.Null()]),
  heartbeat: Type.Union([Type.Literal('ACTIVE'), Type.Literal('IDLE'), Type.Literal('DORMANT')]),
});

export const KeyList = Type.Object({ keys: Type.Array(KeySchema) });
