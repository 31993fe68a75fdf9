import type { AppContext } from '../context.js';
import { unreferenced } from './artifacts.store.js';
import { ORPHAN_MIN_AGE_MS } from './blob-ages.js';
import { clearPublishLeftovers } from './public-files.js';

type Collecting = Pick<AppContext, 'db' | 'blobs' | 'config'>;

/**
 * The moment before which an unreferenced blob may be removed; undefined: whenever.
 *
 * One process (embedded mode): every writer commits a blob and records its reference inside
 * `blobs.exclusive`, so a collector inside that lock never sees a blob between the two.
 * A cluster (REDIS_URL set) shares one store among processes the lock does not reach:
 * another node may have committed a blob (or found it already stored) and not yet recorded
 * it. Commits leave blobs young (a stored copy older than REFRESH_AFTER_MS is written again),
 * so only blobs older than ORPHAN_MIN_AGE_MS are collected there. Real time, not the
 * injected clock: ages are file mtimes and S3 LastModified values.
 */
export function collectableBefore(config: Pick<AppContext['config'], 'redisUrl'>): Date | undefined {
  return config.redisUrl ? new Date(Date.now() - ORPHAN_MIN_AGE_MS) : undefined;
}

/**
 * Removes those of `candidates` that no artifact file references (in a cluster, only the
 * old ones; the sweep takes the rest later). Call it inside `blobs.exclusive`, after the
 * references were dropped. Returns how many went.
 */
export async function removeOrphans(ctx: Collecting, candidates: string[]): Promise<number> {
  const cutoff = collectableBefore(ctx.config);
  let removed = 0;
  for (const sha256 of await unreferenced(ctx.db, [...new Set(candidates)])) {
    if (await ctx.blobs.remove(sha256, cutoff)) removed += 1;
  }
  return removed;
}

/**
 * Removes every stored blob no artifact references: what a crash left between commit and
 * record, and in a cluster what deletions left young. In a cluster it belongs in the sweep
 * the lease holder runs (once for the whole cluster, not at each node's start), and it also
 * takes the old temporary files and publish staging folders crashed nodes left in the
 * shared folders. The listing happens outside the lock, so this node's runs are not held
 * up by it; each candidate is checked again inside. Returns how many blobs went.
 */
export async function sweepOrphanBlobs(ctx: Collecting): Promise<number> {
  const cutoff = collectableBefore(ctx.config);
  if (cutoff) {
    await ctx.blobs.clearTemporary(cutoff);
    await clearPublishLeftovers(ctx, cutoff);
  }
  const candidates = await ctx.blobs.names(cutoff);
  return ctx.blobs.exclusive(() => removeOrphans(ctx, candidates));
}
