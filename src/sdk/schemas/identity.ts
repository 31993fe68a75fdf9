import { Type } from 'typebox';
import { Timestamp, WorkspaceRoleSchema } from './common.js';

const UserSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  isAdmin: Type.Boolean(),
  personalWorkspaceId: Type.String(),
  createdAt: Timestamp,
});

export const SignedInSchema = Type.Object({ token: Type.String(), user: UserSchema });

/** How the caller signed in: an app session, an API key, or an OAuth access token. */
export const CredentialTypeSchema = Type.Union([Type.Literal('session'), Type.Literal('api_key'), Type.Literal('oauth')]);

export const MeSchema = Type.Object({
  user: UserSchema,
  workspace: Type.Object({
    id: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    personal: Type.Boolean(),
    role: WorkspaceRoleSchema,
  }),
  credential: Type.Object({ type: CredentialTypeSchema, id: Type.String() }),
  tier: Type.String(),
});

/** A new key with its plaintext, which the server returns this once. */
export const CreatedKey = Type.Object({
  id: Type.String(),
  key: Type.String(),
  label: Type.String(),
  keyPreview: Type.String(),
  workspaceId: Type.String(),
  createdAt: Timestamp,
});

/** How recently a key was used: the connected agent's heartbeat. */
const KeyHeartbeat = Type.Union([Type.Literal('ACTIVE'), Type.Literal('IDLE'), Type.Literal('DORMANT')]);

export const KeySchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  keyPreview: Type.String(),
  workspaceId: Type.String(),
  createdAt: Timestamp,
  lastUsedAt: Type.Union([Timestamp, Type.Null()]),
  heartbeat: KeyHeartbeat,
});

export const KeyList = Type.Object({ keys: Type.Array(KeySchema) });
