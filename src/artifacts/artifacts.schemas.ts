import { Type } from 'typebox';
import { PageFields, PageQuery } from '../http/schemas.js';

export const ArtifactParams = Type.Object({ artifactId: Type.String({ minLength: 1, maxLength: 100 }) });
export const ArtifactFileParams = Type.Object({
  artifactId: Type.String({ minLength: 1, maxLength: 100 }),
  '*': Type.String({ maxLength: 2048 }),
});
export const ListQuery = Type.Object(PageQuery);

const Fields = {
  id: Type.String(),
  skillSlug: Type.String(),
  skillName: Type.String(),
  title: Type.String(),
  fileType: Type.String(),
  artifactType: Type.String(),
  inputText: Type.String(),
  contentSize: Type.Number(),
  createdSkillSlug: Type.Union([Type.String(), Type.Null()]),
  metadata: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  isInstalled: Type.Boolean(),
  bundleType: Type.Union([Type.String(), Type.Null()]),
  status: Type.String(),
  cost: Type.Number(),
  executionTimeMs: Type.Number(),
  createdAt: Type.String(),
  isPublic: Type.Boolean(),
};

export const ArtifactSchema = Type.Object(Fields);
const ListItem = Type.Object({ ...Fields, fileList: Type.Array(Type.Object({ path: Type.String(), size: Type.Number() })) });
export const ArtifactDetail = Type.Object({ ...Fields, content: Type.String() });
export const ArtifactList = Type.Union([
  Type.Array(ListItem),
  Type.Object({
    items: Type.Array(ListItem),
    ...PageFields,
  }),
]);

export const ManifestSchema = Type.Object({
  version: Type.String(),
  bundleType: Type.String(),
  files: Type.Array(Type.Object({ path: Type.String(), checksum: Type.String(), size: Type.Number(), mimeType: Type.String() })),
  createdAt: Type.String(),
});

export const Published = Type.Object({ publicUrl: Type.String(), filesCopied: Type.Integer() });

export const PreviewFileParams = Type.Object({ '*': Type.String({ maxLength: 2400 }) });
export const PreviewLink = Type.Object({ url: Type.String(), expiresAt: Type.String({ format: 'date-time' }) });
