import { Type } from 'typebox';
import { Timestamp } from '../sdk/schemas/common.js';
import { PASSWORD_MIN_LENGTH } from './users.js';

export const SignUpBody = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 254 }),
  password: Type.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: 1024 }),
});

export const LogInBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

export const ChangePasswordBody = Type.Object({
  currentPassword: Type.String({ minLength: 1, maxLength: 1024 }),
  newPassword: Type.String({ minLength: 1, maxLength: 1024 }),
});
export const PasswordChanged = Type.Object({ success: Type.Literal(true), endedSessions: Type.Integer() });
export const ResetPasswordBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200 }),
  newPassword: Type.String({ minLength: 1, maxLength: 1024 }),
});
export const SessionList = Type.Object({
  sessions: Type.Array(
    Type.Object({
      id: Type.String(),
      workspaceId: Type.String(),
      createdAt: Timestamp,
      expiresAt: Timestamp,
      current: Type.Boolean(),
    }),
  ),
});

export const ResetRequestBody = Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }) });
