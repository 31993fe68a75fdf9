import type { ApiKey, CreatedApiKey } from '../../../src/sdk/types';
import { del, get, post } from '../api';

export const listKeys = async (): Promise<ApiKey[]> => (await get<{ keys: ApiKey[] }>('/api/v1/keys')).keys;

/** Creates a key in the workspace the session acts in (the server binds it there). */
export const createKey = (label: string) => post<CreatedApiKey>('/api/v1/keys', { label });

export const revokeKey = (id: string) => del(`/api/v1/keys/${encodeURIComponent(id)}`);
