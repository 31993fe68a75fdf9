import { Type } from 'typebox';
import { PageQuery } from '../http/schemas.js';

export const FileParams = Type.Object({ fileId: Type.String({ minLength: 1, maxLength: 100 }) });
export const FileListQuery = Type.Object(PageQuery);

/** The name a raw-body upload is stored under. */
export const UploadHeaders = Type.Object({ 'x-filename': Type.Optional(Type.String({ maxLength: 4096 })) });
