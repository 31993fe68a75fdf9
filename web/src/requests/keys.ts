import { del, get, post } from '../api';

/** How recently a key was used: the connected agent's heartbeat. */
export type Heartbeat = 'ACTIVE' | 'IDLE' | 'DORMANT';

export interface ApiKey {
  id: string;
  label: string;
  keyPreview: string;
  workspaceId: string;
  createdAt: string;
  lastUsedAt: string | null;
  heartbeat: Heartbeat;
}

/** A new key with its plaintext, which the server returns this once. */
export interface CreatedKey {
  id: string;
  key: string;
  label: string;
  keyPreview: string;
  workspaceId: string;
  createdAt: string;
}

export const listKeys = async (): Promise<ApiKey[]> => (await get<{ keys: ApiKey[] }>('/api/v1/keys')).keys;

/** Creates a key in the workspace the session acts in (the server binds it there). */
export const createKey = (label: string) => post<CreatedKey>('/api/v1/keys', { label });

export const revokeKey = (id: string) => del(`/api/v1/keys/${encodeURIComponent(id)}`);
