import { randomUUID } from 'node:crypto';
import { constants, createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AppContext } from '../context.js';
import { Conflict, NotFound } from '../errors.js';
import type { Caller } from '../ports/callers.js';
import { invalidate } from '../realtime/control-messages.js';
import { manageableArtifact } from './access.js';
import { fileAt, filesOf, findArtifact, updateArtifact } from './artifacts.store.js';
import { isBundlePath, mimeTypeOf } from './bundle.js';
import type { Delivery } from './delivery.js';

const ARTIFACT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Settings = Pick<AppContext, 'config'>;

function publicRoot(ctx: Settings): string {
  return ctx.config.publicDir;
}

/**
 * With an S3 store there is no folder every node shares, and copying into the bucket would
 * only duplicate blobs: published files are then served from the blobs themselves, by the
 * artifact's file rows, while the artifact is public. Artifact files never change once
 * completed, so readers see the same bytes a copy would hold.
 */
function servedFromBlobs(ctx: Settings): boolean {
  return ctx.config.blobs.kind === 's3';
}

function publicUrlOf(ctx: Settings, artifactId: string, filePath: string): string {
  return `${ctx.config.publicFilesUrl}/public/${artifactId}/${filePath.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * Copies the artifact's files under /public/<id>/. The copy is built beside the live one
 * and renamed into place, so a reader sees the old files or the new ones, never a mix.
 */
export async function publishArtifact(
  ctx: Pick<AppContext, 'db' | 'blobs' | 'config' | 'control' | 'clock'>,
  caller: Caller,
  id: string,
) {
  const artifact = await manageableArtifact(ctx, caller, id);
  if (artifact.status !== 'completed') throw new Conflict('Only a completed artifact can be published');
  const files = await filesOf(ctx.db, [artifact.id]);
  if (!servedFromBlobs(ctx)) {
    const root = publicRoot(ctx);
    const staging = path.join(root, `.staging-${randomUUID()}`);
    try {
      for (const file of files) {
        const target = path.join(staging, ...file.path.split('/'));
        await mkdir(path.dirname(target), { recursive: true });
        await pipeline(ctx.blobs.read(file.sha256), createWriteStream(target, { flags: 'wx' }));
      }
      await mkdir(staging, { recursive: true });
      await removePublicCopy(ctx, artifact.id);
      await rename(staging, path.join(root, artifact.id));
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      throw error;
    }
  }
  await updateArtifact(ctx.db, artifact.id, { is_public: 1 });
  invalidate(ctx, caller.workspaceId, ['artifacts']);
  const shown = artifact.main_path ?? files[0]?.path ?? '';
  return { publicUrl: publicUrlOf(ctx, artifact.id, shown), filesCopied: files.length };
}

export async function unpublishArtifact(
  ctx: Pick<AppContext, 'db' | 'config' | 'control' | 'clock'>,
  caller: Caller,
  id: string,
): Promise<void> {
  const artifact = await manageableArtifact(ctx, caller, id);
  await removePublicCopy(ctx, artifact.id);
  await updateArtifact(ctx.db, artifact.id, { is_public: 0 });
  invalidate(ctx, caller.workspaceId, ['artifacts']);
}

export async function removePublicCopy(ctx: Settings, artifactId: string): Promise<void> {
  if (servedFromBlobs(ctx)) return;
  await rm(path.join(publicRoot(ctx), artifactId), { recursive: true, force: true });
}

/**
 * Removes staging folders a crash left mid-publish: all of them, or with `olderThan` only
 * those last changed before then (in a cluster another node may be publishing into one).
 */
export async function clearPublishLeftovers(ctx: Settings, olderThan: Date | undefined): Promise<void> {
  const root = publicRoot(ctx);
  for (const entry of await readdir(root).catch(() => [])) {
    if (!entry.startsWith('.staging-')) continue;
    const folder = path.join(root, entry);
    const changed = (await stat(folder).catch(() => undefined))?.mtimeMs;
    if (olderThan && (changed === undefined || changed >= olderThan.getTime())) continue;
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * A published file, for anyone. The id and path are checked for shape before they touch
 * the file system, and the file is opened without following links.
 */
export async function publicFile(
  ctx: Pick<AppContext, 'config' | 'db' | 'blobs'>,
  artifactId: string,
  filePath: string,
): Promise<Delivery> {
  if (!ARTIFACT_ID.test(artifactId) || !isBundlePath(filePath)) throw new NotFound('Not found');
  if (servedFromBlobs(ctx)) return publicBlob(ctx, artifactId, filePath);
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

/** A published file out of the blobs (an S3 store): only while its artifact is public. */
async function publicBlob(ctx: Pick<AppContext, 'db' | 'blobs'>, artifactId: string, filePath: string): Promise<Delivery> {
  const artifact = await findArtifact(ctx.db, artifactId);
  if (artifact?.is_public !== 1 || artifact.status !== 'completed') throw new NotFound('Not found');
  const file = await fileAt(ctx.db, artifactId, filePath);
  if (!file) throw new NotFound('Not found');
  return { body: ctx.blobs.read(file.sha256), contentType: mimeTypeOf(filePath), size: Number(file.size) };
}
