import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Redis } from 'ioredis';
import type { AppContext } from '../context.js';
import { pingDatabase } from './ops.store.js';

/** One dependency the node needs to serve: resolves when it answers, throws when it does not. */
export interface ReadinessCheck {
  name: string;
  run(): Promise<void>;
}

export interface Readiness {
  ready: boolean;
  checks: Record<string, string>;
}

/**
 * No blob is stored under this name: no content hashes to all zeros. Removing it is a write
 * to the bucket (the permission the service needs) that changes nothing, at the price of
 * one request.
 */
const NO_BLOB = '0'.repeat(64);

/**
 * What a failed check reports. The probe is public, so it names the kind of failure
 * (ECONNREFUSED, a timeout) but not the message, which can carry hosts and paths; those
 * are logged.
 */
function failureOf(error: unknown): string {
  if (error instanceof SafeFailure) return error.message;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^[A-Za-z0-9_.-]{1,40}$/.test(code)) return `failed: ${code}`;
  return `failed: ${error instanceof Error ? error.name : 'error'}`;
}

/** A failure whose message is safe to show on the public probe. */
class SafeFailure extends Error {}

async function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SafeFailure(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs every check at once, each bounded by `timeoutMs`, so a hung dependency answers 503 fast. */
export async function checkReadiness(checks: ReadinessCheck[], timeoutMs: number, log: AppContext['log']): Promise<Readiness> {
  const results = await Promise.all(
    checks.map(async (check): Promise<[string, string]> => {
      try {
        await within(check.run(), timeoutMs);
        return [check.name, 'ok'];
      } catch (error) {
        log.warn({ err: error, check: check.name }, 'readiness check failed');
        return [check.name, failureOf(error)];
      }
    }),
  );
  return { ready: results.every(([, result]) => result === 'ok'), checks: Object.fromEntries(results) };
}

/** The checks of this node: its database, Redis when it has one, the blob store, and not shutting down. */
export function readinessChecks(ctx: Pick<AppContext, 'db' | 'config' | 'blobs' | 'runs'>, redis?: Redis): ReadinessCheck[] {
  const checks: ReadinessCheck[] = [{ name: 'database', run: () => pingDatabase(ctx.db) }];
  if (redis) {
    checks.push({
      name: 'redis',
      run: async () => {
        await redis.ping();
      },
    });
  }
  const blobs = ctx.config.blobs;
  checks.push({
    name: 'blobs',
    run:
      blobs.kind === 'folder'
        ? async () => {
            // The store's own temporary area, emptied at start: a leftover is harmless.
            const dir = path.join(blobs.dir, 'tmp');
            const file = path.join(dir, `ready-${randomUUID()}`);
            await mkdir(dir, { recursive: true });
            await writeFile(file, 'ready');
            await rm(file, { force: true });
          }
        : async () => {
            await ctx.blobs.remove(NO_BLOB);
          },
  });
  checks.push({
    name: 'shutdown',
    run: async () => {
      // A draining node takes no new runs: the load balancer should send clients elsewhere.
      if (ctx.runs.draining) throw new SafeFailure('shutting down');
    },
  });
  return checks;
}
