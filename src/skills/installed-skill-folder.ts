import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { filesOf, findArtifact } from '../artifacts/artifacts.store.js';
import type { AppContext } from '../context.js';
import type { WorkspaceSkillsTable } from '../db/tables-artifacts.js';
import { uploadedFilesOf } from './uploaded-skills.store.js';

/** Where a skill artifact's folder sits in a skill bundle, from the artifact's metadata. */
export function skillOfMetadata(metadata: string | null): { slug: string; folder?: string } | undefined {
  if (metadata === null) return undefined;
  return (JSON.parse(metadata) as { skill?: { slug: string; folder?: string } }).skill;
}

/**
 * Writes a skill's files out of its artifact's blobs into `dir` (the files under `folder`
 * in the bundle, that prefix dropped).
 */
export async function writeSkillFolder(
  ctx: Pick<AppContext, 'db' | 'blobs'>,
  artifactId: string,
  folder: string | undefined,
  dir: string,
): Promise<void> {
  const prefix = folder ? `${folder}/` : '';
  const files = (await filesOf(ctx.db, [artifactId]))
    .filter((file) => file.path.startsWith(prefix))
    .map((file) => ({ path: file.path.slice(prefix.length), sha256: file.sha256 }));
  await writeFolderFromBlobs(ctx, files, dir);
}

/**
 * Writes files out of the blob store into `dir`: into a staging folder first, renamed into
 * place, so a folder under its real name is always whole. When another process wrote the
 * same folder first, theirs is kept (the files are the same). Paths are relative, checked
 * when they were stored.
 */
export async function writeFolderFromBlobs(
  ctx: Pick<AppContext, 'blobs'>,
  files: { path: string; sha256: string }[],
  dir: string,
): Promise<void> {
  const staging = `${dir}.staging-${randomBytes(4).toString('hex')}`;
  try {
    for (const file of files) {
      const target = path.join(staging, ...file.path.split('/'));
      await mkdir(path.dirname(target), { recursive: true });
      await pipeline(ctx.blobs.read(file.sha256), createWriteStream(target, { flags: 'wx' }));
    }
    await mkdir(path.dirname(dir), { recursive: true });
    await rename(staging, dir).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function hasManifest(dir: string): Promise<boolean> {
  return stat(path.join(dir, 'SKILL.md')).then(
    () => true,
    () => false,
  );
}

/**
 * The folder this node runs an installed skill from. The node that installed it wrote it
 * under its own data folder; another node of a cluster (a worker) writes its own copy out
 * of the artifact's blobs, which every node reaches, the first time it needs it. Undefined
 * when the folder is gone and its artifact too.
 */
export async function localSkillFolder(
  ctx: Pick<AppContext, 'db' | 'blobs' | 'config'>,
  installed: WorkspaceSkillsTable,
): Promise<string | undefined> {
  if (await hasManifest(installed.dir)) return installed.dir;
  if (installed.artifact_id === null) return uploadedSkillFolder(ctx, installed);
  const copy = path.join(
    ctx.config.dataDir,
    'installed-skills',
    installed.workspace_id,
    `${installed.slug}-${installed.artifact_id}`,
  );
  if (await hasManifest(copy)) return copy;
  const artifact = await findArtifact(ctx.db, installed.artifact_id);
  const skill = artifact && skillOfMetadata(artifact.metadata);
  if (!skill) return undefined;
  await writeSkillFolder(ctx, installed.artifact_id, skill.folder, copy);
  return (await hasManifest(copy)) ? copy : undefined;
}

/** A skill installed from an uploaded folder, written out of its stored files on this node. */
async function uploadedSkillFolder(
  ctx: Pick<AppContext, 'db' | 'blobs' | 'config'>,
  installed: WorkspaceSkillsTable,
): Promise<string | undefined> {
  const files = await uploadedFilesOf(ctx.db, installed.workspace_id, installed.slug);
  if (files.length === 0) return undefined;
  const copy = path.join(ctx.config.dataDir, 'installed-skills', installed.workspace_id, path.basename(installed.dir));
  if (!(await hasManifest(copy))) await writeFolderFromBlobs(ctx, files, copy);
  return (await hasManifest(copy)) ? copy : undefined;
}
