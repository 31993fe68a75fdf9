import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chargeModelTokens } from '../../src/billing/charges.js';
import { holdCredits } from '../../src/billing/model-holds.js';
import { ManualClock } from '../../src/clock.js';
import { createAppContext } from '../../src/compose.js';
import { loadConfig } from '../../src/config-load.js';
import type { AppContext } from '../../src/context.js';
import { type Database, openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { MemoryRateLimitStore } from '../../src/identity/rate-limit-store.js';
import { findUserById } from '../../src/identity/users.store.js';
import { recordEvents } from '../../src/runs/events.js';
import { anExecution, aUser } from '../helpers/rows.js';
import { TEST_ENV } from '../helpers/server.js';

let dir: string;
let database: Database;
let ctx: AppContext;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillet-model-call-commit-'));
  database = openDatabase({ kind: 'sqlite', file: path.join(dir, 'test.db') });
  await migrateToLatest(database);
  const config = await loadConfig({ ...TEST_ENV, DATA_DIR: dir });
  ctx = createAppContext({ config, database, clock: new ManualClock(), rateLimits: new MemoryRateLimitStore() });
});
afterEach(async () => {
  await database.close();
  await rm(dir, { recursive: true, force: true });
});

/** A payer with `credits`, their run, and a call of it answered under a hold of 10; `before` counts the commits so far. */
async function answeredCall(credits: number) {
  const user = await aUser(ctx.db, { credits });
  const { execution_id: executionId } = await anExecution(ctx.db, { user, status: 'working' });
  const owner = `run ${executionId}`;
  const answered = await holdCredits(ctx, user.id, owner, 10);
  return { user, executionId, owner, answered, before: database.commitsSent() };
}

describe('a model call of an agent run, on SQLite', () => {
  it("stores the answer's event, its charge and the next call's hold in one commit", async () => {
    const { user, executionId, owner, answered, before } = await answeredCall(100);
    // As the agent loop asks for them: in one turn, when the answer is in and its tool is quick.
    const [events, uncovered, next] = await Promise.all([
      recordEvents(ctx, executionId, [
        { type: 'span.model_request_end', payload: { usage: { input_tokens: 10, output_tokens: 5 } } },
      ]),
      chargeModelTokens(ctx, user.id, executionId, 3, { holdId: answered }),
      holdCredits(ctx, user.id, owner, 10),
    ]);
    expect(database.commitsSent() - before).toBe(1);
    expect(events.map((event) => event.type)).toEqual(['span.model_request_end']);
    expect(uncovered).toBe(0);
    expect(next).toEqual(expect.any(String));
    const account = await findUserById(ctx.db, user.id);
    // Charged 3, the answered call's hold let go, the next call's 10 held.
    expect({ balance: account?.balance, held: account?.held }).toEqual({ balance: 97, held: 10 });
  });

  it('holds only what the balance left after the charge covers, in that same commit', async () => {
    const { user, executionId, owner, answered, before } = await answeredCall(12);
    const [, next] = await Promise.all([
      chargeModelTokens(ctx, user.id, executionId, 5, { holdId: answered }),
      holdCredits(ctx, user.id, owner, 10),
    ]);
    expect(database.commitsSent() - before).toBe(1);
    // 12 less the charge of 5 leaves 7: a hold of 10 is refused, and nothing stays held.
    expect(next).toBeUndefined();
    const account = await findUserById(ctx.db, user.id);
    expect({ balance: account?.balance, held: account?.held }).toEqual({ balance: 7, held: 0 });
  });
});
