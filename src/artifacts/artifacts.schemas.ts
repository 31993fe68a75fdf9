import { Type } from 'typebox';
import { PageQuery } from '../http/schemas.js';

export const ArtifactParams = Type.Object({ artifactId: Type.String({ minLength: 1, maxLength: 100 }) });
export const ArtifactFileParams = Type.Object({
  artifactId: Type.String({ minLength: 1, maxLength: 100 }),
  '*': Type.String({ maxLength: 2048 }),
});
export const ListQuery = Type.Object(PageQuery);

export const PreviewFileParams = Type.Object({ '*': Type.String({ maxLength: 2400 }) });
export const PreviewLink = Type.Object({ url: Type.String(), expiresAt: Type.String({ format: 'date-time' }) });
