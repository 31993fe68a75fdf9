import type { ByokStatus } from '../../../src/sdk/types';
import { del, get, put } from '../api';

export const getByok = () => get<ByokStatus>('/api/v1/byok');

/** Stores the person's own provider key; the server answers with a masked preview only. */
export const saveByokKey = (key: string) => put<ByokStatus>('/api/v1/byok', { key });

export const removeByokKey = () => del('/api/v1/byok');
