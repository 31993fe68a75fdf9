import type { Generated } from 'kysely';

/* Row types of artifacts, their files, and skills installed into workspaces (the `Tables` of tables.ts lists them all). */

export type ArtifactStatus = 'pending' | 'completed' | 'failed';

export type ArtifactType = 'output' | 'skill';

export interface ArtifactsTable {
  /** The list order; `id` is the public id. */
  number: Generated<number>;
  id: string;
  workspace_id: string;
  /** Who ran the execution that wrote it. */
  user_id: string;
  execution_id: string;
  skill_slug: string;
  skill_name: string;
  title: string;
  file_type: string;
  artifact_type: ArtifactType;
  input_text: string;
  content_size: number;
  created_skill_slug: string | null;
  /** JSON text. */
  metadata: string | null;
  is_installed: number;
  bundle_type: 'directory' | null;
  status: ArtifactStatus;
  cost: number;
  execution_time_ms: number;
  created_at: string;
  is_public: number;
  /** JSON text; bundles only. */
  manifest: string | null;
  /** The file that stands for the artifact: its only file, or a bundle's main file. */
  main_path: string | null;
}

export interface ArtifactFilesTable {
  artifact_id: string;
  /** Relative, with forward slashes. */
  path: string;
  /** Hex digest of the content; also the blob's name. */
  sha256: string;
  size: number;
  /** Unsigned CRC-32 of the content, for ZIP headers. */
  crc32: number;
  mime_type: string;
}

/** A skill installed from an artifact into one workspace. */
export interface WorkspaceSkillsTable {
  workspace_id: string;
  slug: string;
  artifact_id: string | null;
  /** The folder its files were written to. */
  dir: string;
  created_at: string;
}

/** A file of a skill installed from an uploaded folder (its workspace_skills row has no artifact). */
export interface UploadedSkillFilesTable {
  workspace_id: string;
  slug: string;
  /** Relative, with forward slashes. */
  path: string;
  /** Hex digest of the content; also the blob's name. */
  sha256: string;
  size: number;
}
