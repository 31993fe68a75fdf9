import type { RunFileRef } from './types.js';

/** What a create (POST /executions) and a one-call run (POST /runs) take besides the skill and input. */
export interface RunOptions {
  source?: string;
  interface?: string;
  idempotencyKey?: string;
  files?: RunFileRef[];
}

/** The body both calls send: optional fields only when given. */
export function runBody(skillSlug: string, input: string, options: RunOptions) {
  return {
    skill_slug: skillSlug,
    input,
    ...(options.source ? { source: options.source } : {}),
    ...(options.interface ? { interface: options.interface } : {}),
    ...(options.files?.length ? { files: options.files } : {}),
  };
}

/** The headers: the Idempotency-Key, and `Prefer: wait` when the caller waits for the result. */
export function runHeaders(options: RunOptions & { wait?: boolean | number }): Record<string, string> {
  return {
    ...(options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}),
    ...(options.wait === true ? { prefer: 'wait' } : {}),
    ...(typeof options.wait === 'number' ? { prefer: `wait=${options.wait}` } : {}),
  };
}
