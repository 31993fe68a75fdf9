import { del, get, post, put } from '../api';

export interface Session {
  id: string;
  workspaceId: string;
  createdAt: string;
  expiresAt: string;
  current: boolean;
}

export const changePassword = (currentPassword: string, newPassword: string) =>
  put<{ success: true; endedSessions: number }>('/api/v1/auth/password', { currentPassword, newPassword });

export const listSessions = async (): Promise<Session[]> =>
  (await get<{ sessions: Session[] }>('/api/v1/auth/sessions')).sessions;

export const endSession = (sessionId: string) => del<{ success: true }>(`/api/v1/auth/sessions/${encodeURIComponent(sessionId)}`);

/** Public: the token of a reset link stands in for the sign-in. */
export const resetPassword = (token: string, newPassword: string) =>
  post<{ success: true }>('/api/v1/auth/password-reset', { token, newPassword });

export interface ConnectedApp {
  id: string;
  clientId: string;
  name: string;
  workspaceId: string;
  scopes: string[];
  connectedAt: string;
}

export const listConnectedApps = async (): Promise<ConnectedApp[]> =>
  (await get<{ apps: ConnectedApp[] }>('/api/v1/auth/connected-apps')).apps;

export const disconnectApp = (grantId: string) =>
  del<{ success: true }>(`/api/v1/auth/connected-apps/${encodeURIComponent(grantId)}`);
