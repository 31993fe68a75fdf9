import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { AppContext } from '../context.js';
import { releaseLeftoverMounts } from '../sandbox/run-space.js';
import { failPendingArtifacts } from './artifacts.store.js';
import { collectableBefore, sweepOrphanBlobs } from './blob-collection.js';
import { clearPublishLeftovers } from './public-files.js';

/**
 * At start-up this process is writing nothing, so what a crash left half done can go: its
 * scratch folders (DATA_DIR is the node's own; the run mounts in them are unmounted first), and artifacts still pending, cut off with
 * their run, become failed. Temporary blob files, publish staging folders and unreferenced
 * blobs all go too in embedded mode. In a cluster the store and the public folder are
 * shared, and another node may be staging, publishing or about to record a blob this very
 * moment: only leftovers older than the collection age go, and unreferenced blobs are left
 * to the cluster's sweep (`sweepOrphanBlobs`).
 */
export async function recoverArtifacts(
  ctx: Pick<AppContext, 'db' | 'blobs' | 'config' | 'sandbox'>,
): Promise<{ failed: number; removedBlobs: number; unmounted: number }> {
  const cutoff = collectableBefore(ctx.config);
  const unmounted = await releaseLeftoverMounts(ctx.sandbox.boundedSpace, ctx.config.dataDir);
  await rm(path.join(ctx.config.dataDir, 'scratch'), { recursive: true, force: true });
  await ctx.blobs.clearTemporary(cutoff);
  await clearPublishLeftovers(ctx, cutoff);
  const failed = await failPendingArtifacts(ctx.db, ctx.config.nodeId);
  const removedBlobs = cutoff ? 0 : await sweepOrphanBlobs(ctx);
  return { failed, removedBlobs, unmounted };
}
