import { Type } from 'typebox';
import { Timestamp } from '../sdk/schemas/common.js';

export const ConnectedAppList = Type.Object({
  apps: Type.Array(
    Type.Object({
      id: Type.String(),
      clientId: Type.String(),
      name: Type.String(),
      workspaceId: Type.String(),
      scopes: Type.Array(Type.String()),
      connectedAt: Timestamp,
    }),
  ),
});
