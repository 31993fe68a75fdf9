import { Type } from 'typebox';
import { NullableTimestamp, PageFields, PageQuery, Timestamp } from '../http/schemas.js';

export const FileParams = Type.Object({ fileId: Type.String({ minLength: 1, maxLength: 100 }) });
export const FileListQuery = Type.Object(PageQuery);

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

/** The name a raw-body upload is stored under. */
export const UploadHeaders = Type.Object({ 'x-filename': Type.Optional(Type.String({ maxLength: 4096 })) });
