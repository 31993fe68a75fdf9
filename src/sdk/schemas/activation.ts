import { Type } from 'typebox';
import { Timestamp } from './common.js';

/** A device's sign-in request as the person approving it sees it. */
export const ActivationStatusSchema = Type.Union([
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

/** The key, tier and workspace come with `approved` only (types.ts's PollResult says which). */
export const PollResponse = Type.Object({
  status: ActivationStatusSchema,
  api_key: Type.Optional(Type.String()),
  tier: Type.Optional(Type.String()),
  workspace: Type.Optional(Type.Object({ id: Type.String(), name: Type.Union([Type.String(), Type.Null()]) })),
});

export const ActivationDetailsSchema = Type.Object({
  user_code: Type.String(),
  client_label: Type.String(),
  client_ua: Type.String(),
  client_ip: Type.String(),
  status: ActivationStatusSchema,
  expires_at: Timestamp,
});
