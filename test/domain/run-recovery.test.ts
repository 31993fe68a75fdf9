import { describe, expect } from 'vitest';
import type { AppContext } from '../../src/context.js';
import { runSteps } from '../../src/db/statement-steps.js';
import { appendEvents } from '../../src/runs/events.store.js';
import { findExecution } from '../../src/runs/executions.store.js';
import { noteResumed, resumesOf } from '../../src/runs/run-journal.js';
import { recoverLostRun } from '../../src/runs/run-resume.js';
import { withDomain } from '../helpers/domain.js';
import { anExecution } from '../helpers/rows.js';

const it = withDomain();

/**
 * A run whose first attempt's worker was lost and which the cluster's tick has already
 * handed on: its second attempt now runs on `owner`.
 */
async function handedOnRun(ctx: AppContext, owner: string) {
  const execution = await anExecution(ctx.db, { status: 'working', ownerNode: owner, skill: 'agent-plain' });
  const executionId = execution.execution_id;
  const [start] = await ctx.db
    .transaction()
    .execute((trx) =>
      runSteps(
        trx,
        appendEvents(
          trx,
          executionId,
          [{ type: 'user.message', payload: { content: [{ type: 'text', text: 'Go.' }] } }],
          '2026-01-01T00:00:00.000Z',
        ),
      ),
    );
  const runStart = start?.event.sequence ?? 0;
  await noteResumed(ctx.db, { executionId, runStart }, ctx.clock.now().toISOString());
  return { executionId, runStart };
}

describe('recovering a run whose queue job stalled', () => {
  it("leaves alone a run handed on since the stalled job's attempt, even one now owned by the recovering node", async ({
    ctx,
  }) => {
    const { executionId, runStart } = await handedOnRun(ctx, ctx.config.nodeId);
    // The first attempt's job (handed on 0 times) stalls after the tick handed its run on.
    expect(await recoverLostRun(ctx, executionId, { runStart, resumes: 0 })).toBe('gone');
    expect(await findExecution(ctx.db, executionId)).toMatchObject({ status: 'working', owner_node: ctx.config.nodeId });
    expect(await resumesOf(ctx, { executionId, runStart })).toBe(1);
    // A job of an earlier run start of the execution is as stale.
    expect(await recoverLostRun(ctx, executionId, { runStart: runStart - 1, resumes: 1 })).toBe('gone');
    expect(await findExecution(ctx.db, executionId)).toMatchObject({ status: 'working' });
  });

  it('recovers a run whose current attempt is the one that stalled', async ({ ctx }) => {
    const { executionId, runStart } = await handedOnRun(ctx, 'worker-lost');
    // This node runs no queue, so the run cannot be handed on: it ends, failed, instead of being left alone.
    expect(await recoverLostRun(ctx, executionId, { runStart, resumes: 1 })).toBe('failed');
    expect(await findExecution(ctx.db, executionId)).toMatchObject({ status: 'failed' });
  });
});
