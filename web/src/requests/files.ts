import type { InputFile } from '../../../src/sdk/types';
import { api, del } from '../api';

/** Stores a file for runs: its bytes as the body, its name percent-encoded so any name survives a header. */
export const uploadFile = (file: File) =>
  api<InputFile>('POST', '/api/v1/files', file, {
    'x-filename': encodeURIComponent(file.name),
    'content-type': file.type || 'application/octet-stream',
  });

export const deleteFile = (id: string) => del<{ success: boolean }>(`/api/v1/files/${encodeURIComponent(id)}`);
