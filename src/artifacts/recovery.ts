import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { AppContext } from '../context.js';
import { failPendingArtifacts, unreferenced } from './artifacts.store.js';

/**
 * At start-up nothing is being written, so whatever a crash left half done can go: scratch
 * folders, temporary blob files, publish staging folders, and blobs that were stored but
 * never recorded. Artifacts still pending were cut off with their run and become failed.
 */
export async function recoverArtifacts(
  ctx: Pick<AppContext, 'db' | 'blobs' | 'config'>,
): Promise<{ failed: number; removedBlobs: number }> {
  await rm(path.join(ctx.config.dataDir, 'scratch'), { recursive: true, force: true });
  await ctx.blobs.clearTemporary();
  const publicRoot = path.join(ctx.config.dataDir, 'public');
  for (const entry of await readdir(publicRoot).catch(() => [])) {
    if (entry.startsWith('.staging-')) await rm(path.join(publicRoot, entry), { recursive: true, force: true });
  }
  const failed = await failPendingArtifacts(ctx.db);
  const orphans = await unreferenced(ctx.db, await ctx.blobs.names());
  for (const sha256 of orphans) await ctx.blobs.remove(sha256);
  return { failed, removedBlobs: orphans.length };
}
