import type { Static } from 'typebox';
import type { ArtifactSchema } from '../sdk/schemas/artifacts.js';
import type { ArtifactFileRow, ArtifactRow } from './artifacts.store.js';

/** The fields every artifact response has: the route schema's shape. */
export type ArtifactView = Static<typeof ArtifactSchema>;

export function artifactView(row: ArtifactRow): ArtifactView {
  return {
    id: row.id,
    skillSlug: row.skill_slug,
    skillName: row.skill_name,
    title: row.title,
    fileType: row.file_type,
    artifactType: row.artifact_type,
    inputText: row.input_text,
    contentSize: Number(row.content_size),
    createdSkillSlug: row.created_skill_slug,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>),
    isInstalled: row.is_installed === 1,
    bundleType: row.bundle_type,
    status: row.status,
    cost: row.cost,
    executionTimeMs: row.execution_time_ms,
    createdAt: row.created_at,
    isPublic: row.is_public === 1,
  };
}

export function fileListOf(files: ArtifactFileRow[]): { path: string; size: number }[] {
  return files.map((file) => ({ path: file.path, size: Number(file.size) }));
}
