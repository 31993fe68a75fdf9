import path from 'node:path';
import type { AppContext } from '../context.js';
import { Conflict, NotFound } from '../errors.js';
import type { Caller } from '../ports/callers.js';
import { invalidate } from '../realtime/control-messages.js';
import { manageableArtifact, readableArtifact } from './access.js';
import { type ArtifactView, artifactView, fileListOf } from './artifact-view.js';
import {
  type ArtifactFileRow,
  type ArtifactRow,
  artifactPage,
  artifactsOfExecution,
  countInWorkspace,
  deleteArtifact,
  fileAt,
  filesOf,
} from './artifacts.store.js';
import { removeOrphans } from './blob-collection.js';
import { downloadName, isBundlePath, isText, type Manifest } from './bundle.js';
import type { Delivery } from './delivery.js';
import { removePublicCopy } from './public-files.js';
import { zipBundle } from './zip.js';

type Files = Pick<AppContext, 'db' | 'blobs'>;

/** The detail's `content` is the main file's text, up to this many bytes. */
const CONTENT_LIMIT = 1024 * 1024;

export async function listArtifacts(ctx: Pick<AppContext, 'db'>, caller: Caller, limit: number, offset: number) {
  const [rows, total] = await Promise.all([
    artifactPage(ctx.db, caller.workspaceId, limit, offset),
    countInWorkspace(ctx.db, caller.workspaceId),
  ]);
  const files = await filesOf(
    ctx.db,
    rows.map((row) => row.id),
  );
  const items = rows.map((row) => ({
    ...artifactView(row),
    fileList: fileListOf(files.filter((file) => file.artifact_id === row.id)),
  }));
  return { items, total };
}

/**
 * The artifacts an execution of the caller's workspace wrote. An execution of another
 * workspace shows none, like one that wrote nothing; the caller looks the execution up first.
 */
export async function executionArtifacts(ctx: Pick<AppContext, 'db'>, caller: Caller, executionId: string) {
  const rows = await artifactsOfExecution(ctx.db, caller.workspaceId, executionId);
  return rows.map(artifactView);
}

async function mainFile(ctx: Pick<AppContext, 'db'>, artifact: ArtifactRow): Promise<ArtifactFileRow | undefined> {
  return artifact.main_path === null ? undefined : fileAt(ctx.db, artifact.id, artifact.main_path);
}

async function readText(ctx: Pick<AppContext, 'blobs'>, file: ArtifactFileRow, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of ctx.blobs.read(file.sha256) as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    length += chunk.length;
    if (length >= limit) break;
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, limit));
}

export async function artifactDetail(ctx: Files, caller: Caller, id: string): Promise<ArtifactView & { content: string }> {
  const artifact = await readableArtifact(ctx, caller, id);
  const main = await mainFile(ctx, artifact);
  const content = main && isText(main.mime_type) ? await readText(ctx, main, CONTENT_LIMIT) : '';
  return { ...artifactView(artifact), content };
}

export async function artifactManifest(ctx: Pick<AppContext, 'db'>, caller: Caller, id: string): Promise<Manifest> {
  const artifact = await readableArtifact(ctx, caller, id);
  if (artifact.manifest === null) throw new NotFound('This artifact has no manifest');
  return JSON.parse(artifact.manifest) as Manifest;
}

function requireFiles(artifact: ArtifactRow): void {
  if (artifact.status === 'failed') throw new Conflict('This artifact has no files: its run did not complete');
}

/** The artifact as one download: its file, or its bundle as a ZIP archive. */
export async function artifactDownload(ctx: Files, caller: Caller, id: string): Promise<Delivery> {
  const artifact = await readableArtifact(ctx, caller, id);
  requireFiles(artifact);
  if (artifact.bundle_type === 'directory') {
    const files = await filesOf(ctx.db, [artifact.id]);
    const entries = files.map((file) => ({
      path: file.path,
      sha256: file.sha256,
      size: Number(file.size),
      crc32: Number(file.crc32),
    }));
    const zip = zipBundle(ctx.blobs, entries, new Date(artifact.created_at));
    return {
      body: zip.stream,
      contentType: 'application/zip',
      size: zip.size,
      fileName: downloadName(artifact.title, '.zip'),
    };
  }
  const file = await mainFile(ctx, artifact);
  if (!file) throw new NotFound('This artifact has no file');
  return {
    body: ctx.blobs.read(file.sha256),
    contentType: file.mime_type,
    size: Number(file.size),
    // The name the skill gave its one file (proposal.docx), not the title: a bundle has no such name.
    fileName: downloadName(path.posix.basename(file.path), ''),
  };
}

/** The artifact's main file as text/plain. */
export async function artifactRaw(ctx: Files, caller: Caller, id: string): Promise<Delivery> {
  const artifact = await readableArtifact(ctx, caller, id);
  requireFiles(artifact);
  const file = await mainFile(ctx, artifact);
  if (!file) throw new NotFound('This artifact has no text to show');
  return { body: ctx.blobs.read(file.sha256), contentType: 'text/plain; charset=utf-8', size: Number(file.size) };
}

/** One file of the artifact by its path in the bundle; a path that could name no file is simply not found. */
export async function artifactFile(ctx: Files, caller: Caller, id: string, filePath: string): Promise<Delivery> {
  const artifact = await readableArtifact(ctx, caller, id);
  const file = isBundlePath(filePath) ? await fileAt(ctx.db, artifact.id, filePath) : undefined;
  if (!file) throw new NotFound('No such file in this artifact');
  return { body: ctx.blobs.read(file.sha256), contentType: file.mime_type, size: Number(file.size) };
}

/** Deletes the artifact for good: its row, its public copy, and any blob nothing else uses. */
export async function removeArtifact(
  ctx: Files & Pick<AppContext, 'config' | 'control' | 'clock'>,
  caller: Caller,
  id: string,
): Promise<void> {
  const artifact = await manageableArtifact(ctx, caller, id);
  const files = await filesOf(ctx.db, [artifact.id]);
  await removePublicCopy(ctx, artifact.id);
  await ctx.blobs.exclusive(async () => {
    await deleteArtifact(ctx.db, artifact.id);
    await removeOrphans(
      ctx,
      files.map((file) => file.sha256),
    );
  });
  invalidate(ctx, caller.workspaceId, ['artifacts']);
}
