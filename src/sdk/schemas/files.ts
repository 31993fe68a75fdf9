import { Type } from 'typebox';
import { NullableTimestamp, PageFields, Timestamp } from './common.js';

/** A file uploaded for runs (DESIGN §15); it expires unless a run is given it. */
export const FileSchema = Type.Object({
  id: Type.String(),
  filename: Type.String(),
  size: Type.Integer(),
  mimeType: Type.String(),
  /** Plain lowercase hex. */
  sha256: Type.String(),
  createdAt: Timestamp,
  /** Null once a run was given the file: it stays until deleted. */
  expiresAt: NullableTimestamp,
});

export const FileList = Type.Object({ items: Type.Array(FileSchema), ...PageFields });
