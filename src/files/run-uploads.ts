import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { filesOf, findArtifact } from '../artifacts/artifacts.store.js';
import type { AppContext } from '../context.js';
import type { RunUploads } from '../ports/runs.js';
import { folderNameOf, uniqueName } from './file-names.js';
import { filesOfExecution, inputFilesById } from './files.store.js';

/** A file or artifact a run was given is gone (deleted since): the run cannot have its input. */
export class MissingRunFile extends Error {}

/** Every run's folder of files lives here; DATA_DIR is the node's own, so a crash's leftovers are all this node's. */
function uploadsRoot(ctx: Pick<AppContext, 'config'>): string {
  return path.join(ctx.config.dataDir, 'run-uploads');
}

interface Placed {
  path: string;
  sha256: string;
  size: number;
  mimeType: string;
}

/** Where each file goes in the run's folder: its cleaned name, `name (2).ext` for a second of that name, an artifact's under its title. */
async function layoutOf(ctx: Pick<AppContext, 'db'>, executionId: string): Promise<Placed[]> {
  const links = await filesOfExecution(ctx.db, executionId);
  const uploaded = new Map(
    (
      await inputFilesById(
        ctx.db,
        links.flatMap((link) => (link.file_id ? [link.file_id] : [])),
      )
    ).map((file) => [file.id, file]),
  );
  const taken = new Set<string>();
  const placed: Placed[] = [];
  for (const link of links) {
    if (link.file_id) {
      const file = uploaded.get(link.file_id);
      if (!file)
        throw new MissingRunFile(
          'a file this run was given was deleted before it started; start a new run with the files you want',
        );
      placed.push({
        path: uniqueName(file.filename, taken),
        sha256: file.sha256,
        size: Number(file.size),
        mimeType: file.mime_type,
      });
      continue;
    }
    const artifact = link.artifact_id ? await findArtifact(ctx.db, link.artifact_id) : undefined;
    if (!artifact)
      throw new MissingRunFile(
        'an artifact this run was given was deleted before it started; start a new run with the files you want',
      );
    const folder = uniqueName(folderNameOf(artifact.title), taken);
    for (const file of await filesOf(ctx.db, [artifact.id])) {
      // Bundle paths were checked when the artifact was stored: relative, forward slashes, no `..`.
      placed.push({ path: `${folder}/${file.path}`, sha256: file.sha256, size: Number(file.size), mimeType: file.mime_type });
    }
  }
  return placed;
}

/**
 * Copies the files an execution was given into a new folder of the run's own (copies, so
 * whatever the run does to them never reaches the blobs); undefined when it was given none.
 * Throws MissingRunFile when one of them has been deleted since.
 */
export async function prepareUploads(
  ctx: Pick<AppContext, 'db' | 'blobs' | 'config'>,
  executionId: string,
): Promise<RunUploads | undefined> {
  const placed = await layoutOf(ctx, executionId);
  if (placed.length === 0) return undefined;
  const dir = path.join(uploadsRoot(ctx), randomUUID());
  try {
    await mkdir(dir, { recursive: true });
    for (const file of placed) {
      const target = path.join(dir, ...file.path.split('/'));
      await mkdir(path.dirname(target), { recursive: true });
      await pipeline(ctx.blobs.read(file.sha256), createWriteStream(target, { flags: 'wx', mode: 0o444 }));
    }
  } catch (error) {
    await removeUploads(dir);
    throw error;
  }
  return { dir, files: placed.map(({ path: relative, size, mimeType }) => ({ path: relative, size, mimeType })) };
}

export async function removeUploads(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** At start no run is under way here: the folders runs cut off by a crash left behind go. */
export async function clearUploadLeftovers(ctx: Pick<AppContext, 'config'>): Promise<void> {
  await rm(uploadsRoot(ctx), { recursive: true, force: true });
}
