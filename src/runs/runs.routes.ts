import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { InvalidInput } from '../errors.js';
import { callerOf } from '../identity/credentials.js';
import { limitExecutionStarts } from '../identity/request-limits.js';
import type { Caller } from '../ports/callers.js';
import { RunAnswer } from '../sdk/schemas/executions.js';
import { idempotencyKeyOf } from './executions.routes.js';
import { CreateExecutionBody } from './executions.schemas.js';
import { followRun, type RunFollow } from './run-follow.js';
import { createAndStart } from './run-now.js';
import { executionReport, runPageUrl } from './run-report.js';
import { signedStreamUrl } from './stream-url.js';

/** The longest a caller may hold the request open for the result (Replicate's cap, too). */
export const WAIT_MAX_SECONDS = 60;

const WAIT_WORDS = `The Prefer header's wait must be a whole number of seconds from 1 to ${WAIT_MAX_SECONDS}, as in "Prefer: wait=30"; send "Prefer: wait" for the longest wait`;

/**
 * The seconds to wait for the result from `Prefer` (RFC 7240: comma-separated preferences,
 * names case-insensitive, unknown ones ignored): `wait` alone is the longest wait, `wait=N`
 * is capped at it. Undefined when the caller did not ask to wait.
 */
export function preferredWait(header: string | string[] | undefined): number | undefined {
  const preferences = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',');
  for (const preference of preferences) {
    const [name = '', ...rest] = (preference.split(';')[0] ?? '').split('=');
    if (name.trim().toLowerCase() !== 'wait') continue;
    if (rest.length === 0) return WAIT_MAX_SECONDS;
    const value = rest
      .join('=')
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (!/^[0-9]{1,9}$/.test(value) || Number(value) < 1) throw new InvalidInput(WAIT_WORDS);
    return Math.min(Number(value), WAIT_MAX_SECONDS);
  }
  return undefined;
}

/** Settles when the run ends or `seconds` pass on the injected clock, whichever is first. */
async function waitAtMost(ctx: AppContext, run: RunFollow, seconds: number): Promise<void> {
  let stopTimer = () => {};
  const timedOut = new Promise<void>((resolve) => {
    stopTimer = ctx.clock.every(seconds * 1000, resolve);
  });
  try {
    await Promise.race([run.ended, timedOut]);
  } catch {
    // The client went away: the run goes on, and nobody reads this answer.
  } finally {
    stopTimer();
    run.stop();
  }
}

type Started = Awaited<ReturnType<typeof createAndStart>>;

async function runAnswer(ctx: AppContext, caller: Caller, execution: Started) {
  const { artifacts, ...report } = await executionReport(ctx, caller, execution.execution_id);
  const id = encodeURIComponent(execution.execution_id);
  return {
    ...report,
    skillName: execution.skill_name,
    inputText: execution.input_text,
    artifacts,
    sseUrl: signedStreamUrl(ctx, execution.execution_id),
    statusUrl: `${ctx.config.publicUrl}/api/v1/executions/${id}/status`,
    webUrl: runPageUrl(ctx.config.publicUrl, execution.execution_id),
  };
}

/**
 * POST /runs: create and start in one call, the input sent once; with `Prefer: wait` the
 * answer waits for the result (201 once the run ended, 202 with where to follow it when the
 * wait runs out). Waiting does not hold the run: a client that leaves leaves it running.
 */
export function runRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/runs',
      {
        config: { auth: 'user' },
        schema: { body: CreateExecutionBody, response: { 201: RunAnswer, 202: RunAnswer } },
      },
      async (request, reply) => {
        const wait = preferredWait(request.headers.prefer);
        const idempotencyKey = idempotencyKeyOf(request.headers['idempotency-key']);
        await limitExecutionStarts(ctx, request, reply);
        const caller = callerOf(request);
        const left = new AbortController();
        reply.raw.once('close', () => left.abort());
        let run: RunFollow | undefined;
        const follow = (executionId: string) => {
          if (wait !== undefined) run = followRun(ctx, caller, executionId, () => {}, left.signal);
        };
        const body = request.body;
        const execution = await createAndStart(
          ctx,
          caller,
          {
            skillSlug: body.skill_slug,
            input: body.input,
            source: body.source,
            interface: body.interface,
            files: body.files,
            idempotencyKey,
          },
          follow,
        ).catch((error: unknown) => {
          run?.stop();
          throw error;
        });
        if (run !== undefined && wait !== undefined) {
          // An Idempotency-Key's retry may answer with a run that is already over.
          if (execution.status === 'working') await waitAtMost(ctx, run, wait);
          else run.stop();
          reply.header('preference-applied', `wait=${wait}`);
        }
        const answer = await runAnswer(ctx, caller, execution);
        reply.header('location', answer.statusUrl);
        return reply.code(answer.status === 'working' ? 202 : 201).send(answer);
      },
    );
  };
}
