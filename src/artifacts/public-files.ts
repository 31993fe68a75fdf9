import { randomUUID } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { copyFile, mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { AppContext } from '../context.js';
import { Conflict, NotFound } from '../errors.js';
import type { Caller } from '../identity/callers.js';
import { manageableArtifact } from './access.js';
import { filesOf, updateArtifact } from './artifacts.store.js';
import { isBundlePath, mimeTypeOf } from './bundle.js';
import type { Delivery } from './delivery.js';

const ARTIFACT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Settings = Pick<AppContext, 'config'>;

function publicRoot(ctx: Settings): string {
  return path.join(ctx.config.dataDir, 'public');
}

function publicUrlOf(ctx: Settings, artifactId: string, filePath: string): string {
  return `${ctx.config.publicFilesUrl}/public/${artifactId}/${filePath.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * Copies the artifact's files under /public/<id>/. The copy is built beside the live one
 * and renamed into place, so a reader sees the old files or the new ones, never a mix.
 */
export async function publishArtifact(ctx: Pick<AppContext, 'db' | 'blobs' | 'config'>, caller: Caller, id: string) {
  const artifact = await manageableArtifact(ctx, caller, id);
  if (artifact.status !== 'completed') throw new Conflict('Only a completed artifact can be published');
  const files = await filesOf(ctx.db, [artifact.id]);
  const root = publicRoot(ctx);
  const staging = path.join(root, `.staging-${randomUUID()}`);
  try {
    for (const file of files) {
      const target = path.join(staging, ...file.path.split('/'));
      await mkdir(path.dirname(target), { recursive: true });
      await copyFile(ctx.blobs.pathOf(file.sha256), target);
    }
    await mkdir(staging, { recursive: true });
    await removePublicCopy(ctx, artifact.id);
    await rename(staging, path.join(root, artifact.id));
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
  await updateArtifact(ctx.db, artifact.id, { is_public: 1 });
  const shown = artifact.main_path ?? files[0]?.path ?? '';
  return { publicUrl: publicUrlOf(ctx, artifact.id, shown), filesCopied: files.length };
}

export async function unpublishArtifact(ctx: Pick<AppContext, 'db' | 'config'>, caller: Caller, id: string): Promise<void> {
  const artifact = await manageableArtifact(ctx, caller, id);
  await removePublicCopy(ctx, artifact.id);
  await updateArtifact(ctx.db, artifact.id, { is_public: 0 });
}

export async function removePublicCopy(ctx: Settings, artifactId: string): Promise<void> {
  await rm(path.join(publicRoot(ctx), artifactId), { recursive: true, force: true });
}

/**
 * A published file, for anyone. The id and path are checked for shape before they touch
 * the file system, and the file is opened without following links.
 */
export async function publicFile(ctx: Settings, artifactId: string, filePath: string): Promise<Delivery> {
  if (!ARTIFACT_ID.test(artifactId) || !isBundlePath(filePath)) throw new NotFound('Not found');
  const absolute = path.join(publicRoot(ctx), artifactId, ...filePath.split('/'));
  const handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => undefined);
  if (!handle) throw new NotFound('Not found');
  const stats = await handle.stat();
  if (!stats.isFile()) {
    await handle.close();
    throw new NotFound('Not found');
  }
  return { body: createReadStream('', { fd: handle }), contentType: mimeTypeOf(filePath), size: stats.size };
}
