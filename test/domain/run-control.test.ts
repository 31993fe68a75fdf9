import { describe, expect } from 'vitest';
import { Conflict, ExecutionRunning } from '../../src/errors.js';
import { findExecution } from '../../src/runs/executions.store.js';
import { startRun } from '../../src/runs/run-control.js';
import { withDomain } from '../helpers/domain.js';
import { anExecution, aTeam, aUser, callerFor } from '../helpers/rows.js';

// One run per user at a time, so the per-user rule shows with two workspaces.
const it = withDomain({ RUNS_PER_USER: '1' });

describe('claiming a run (idle to working)', () => {
  it('is refused for a finished execution, which reruns instead', async ({ ctx, db }) => {
    const user = await aUser(db);
    for (const status of ['completed', 'failed'] as const) {
      const execution = await anExecution(db, { user, status });
      await expect(startRun(ctx, callerFor(user), execution.execution_id, 'go')).rejects.toBeInstanceOf(Conflict);
    }
  });

  it('is refused for an execution already working', async ({ ctx, db }) => {
    const user = await aUser(db);
    const execution = await anExecution(db, { user, status: 'working' });
    await expect(startRun(ctx, callerFor(user), execution.execution_id, 'go')).rejects.toBeInstanceOf(ExecutionRunning);
  });

  it('is refused while another execution works in the same workspace, and the refused one stays idle with no events', async ({
    ctx,
    db,
  }) => {
    const owner = await aUser(db);
    const member = await aUser(db);
    const team = await aTeam(db, { owner, members: [{ user: member, role: 'member' }] });
    await anExecution(db, { user: owner, workspaceId: team.id, status: 'working' });
    const waiting = await anExecution(db, { user: member, workspaceId: team.id });
    await expect(
      startRun(ctx, callerFor(member, { workspaceId: team.id, role: 'member' }), waiting.execution_id, 'go'),
    ).rejects.toThrow(
      new ExecutionRunning(
        'An execution is already running in this workspace. Wait for it to finish, or cancel it, then start this one again.',
      ),
    );
    expect(await findExecution(db, waiting.execution_id)).toMatchObject({ status: 'idle', last_sequence: 0, started_at: null });
  });

  it('is refused past RUNS_PER_USER running executions of one user across workspaces', async ({ ctx, db }) => {
    const user = await aUser(db);
    const team = await aTeam(db, { owner: user });
    await anExecution(db, { user, workspaceId: team.id, status: 'working' });
    const second = await anExecution(db, { user });
    await expect(startRun(ctx, callerFor(user), second.execution_id, 'go')).rejects.toThrow(/runs in progress/);
    expect(await findExecution(db, second.execution_id)).toMatchObject({ status: 'idle', last_sequence: 0 });
    // The place it took on this server was given back.
    expect(ctx.runs.reserve(1)).toBe(true);
    ctx.runs.release();
  });
});
