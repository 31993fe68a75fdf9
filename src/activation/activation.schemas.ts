import { Type } from 'typebox';
import { Timestamp } from '../http/schemas.js';

const Code = Type.String({ maxLength: 64 });
const Status = Type.Union([
  Type.Literal('pending'),
  Type.Literal('approved'),
  Type.Literal('denied'),
  Type.Literal('expired'),
  Type.Literal('consumed'),
]);

export const CreatedActivation = Type.Object({
  device_code: Type.String(),
  user_code: Type.String(),
  verification_url: Type.String(),
  verification_url_complete: Type.String(),
  app_download_url: Type.String(),
  expires_in: Type.Integer(),
  interval: Type.Integer(),
});

export const PollBody = Type.Object({ device_code: Type.String({ maxLength: 200 }) });

export const PollResponse = Type.Object({
  status: Status,
  api_key: Type.Optional(Type.String()),
  tier: Type.Optional(Type.String()),
  workspace: Type.Optional(Type.Object({ id: Type.String(), name: Type.Union([Type.String(), Type.Null()]) })),
});

export const CodeBody = Type.Object({ code: Code });
export const CodeQuery = Type.Object({ code: Code });

export const ActivationDetailsSchema = Type.Object({
  user_code: Type.String(),
  client_label: Type.String(),
  client_ua: Type.String(),
  client_ip: Type.String(),
  status: Status,
  expires_at: Timestamp,
});
