import { Type } from 'typebox';
import { PageFields } from './common.js';

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

/** An artifact as the install answer and a run's answer carry it: neither its files nor its text. */
export const ArtifactSchema = Type.Object(Fields);
export const ArtifactListItem = Type.Object({
  ...Fields,
  fileList: Type.Array(Type.Object({ path: Type.String(), size: Type.Number() })),
});
export const ArtifactDetail = Type.Object({ ...Fields, content: Type.String() });
/** The bare array without paging asked for (the legacy shape), else a page. */
export const ArtifactList = Type.Union([
  Type.Array(ArtifactListItem),
  Type.Object({ items: Type.Array(ArtifactListItem), ...PageFields }),
]);

export const ManifestSchema = Type.Object({
  version: Type.String(),
  bundleType: Type.String(),
  files: Type.Array(Type.Object({ path: Type.String(), checksum: Type.String(), size: Type.Number(), mimeType: Type.String() })),
  createdAt: Type.String(),
});

export const Published = Type.Object({ publicUrl: Type.String(), filesCopied: Type.Integer() });
