import type { Env } from '../../src/config.js';
import { buildTestApp } from '../helpers/server.js';
import { type DocumentedOperation, type OpenApiDocument, operationsOf } from './openapi-document.js';

/**
 * The fuzz suite's knobs. FUZZ_SEED replays a failure (fast-check prints the seed it
 * used, and the path, when a property fails); FUZZ_RUNS multiplies every route's runs, for
 * a longer hunt than CI's few minutes allow.
 */
export const FUZZ_SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const SCALE = Number(process.env.FUZZ_RUNS ?? '1');

export function runs(base: number): { numRuns: number; seed?: number } {
  return { numRuns: Math.max(1, Math.round(base * SCALE)), ...(FUZZ_SEED === undefined ? {} : { seed: FUZZ_SEED }) };
}

/**
 * Every limit raised out of reach: thousands of requests from one address and one
 * credential are the point here, not abuse. The 429 envelope has its own property, on a
 * server whose REST limit is left low (rate-limit.test.ts).
 */
export const UNLIMITED: Env = {
  RATE_LIMIT_REST_PER_MINUTE: '10000000',
  RATE_LIMIT_EXECUTIONS_PER_MINUTE: '10000000',
  RATE_LIMIT_MCP_PER_MINUTE: '10000000',
  RATE_LIMIT_WEBHOOK_PER_MINUTE: '10000000',
  RATE_LIMIT_POLL_BURST: '10000000',
  RATE_LIMIT_POLL_PER_SECOND: '10000000',
  RATE_LIMIT_ACTIVATION_INTERVAL_MS: '0',
  RATE_LIMIT_LOGIN_FAILURES: '1000000',
};

/**
 * The document as the server serves it, read once while the file is collected: Vitest
 * needs the operations to name one test per route before any fixture runs.
 */
export async function servedDocument(): Promise<{ document: OpenApiDocument; operations: DocumentedOperation[] }> {
  const built = await buildTestApp();
  try {
    const document = (await built.app.inject({ method: 'GET', url: '/openapi.json' })).json<OpenApiDocument>();
    return { document, operations: operationsOf(document) };
  } finally {
    await built.close();
  }
}
