import { readdir, readFile } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { balanceOf } from '../helpers/billing.js';
import { postgresUrl } from '../helpers/database.js';
import { createExecution, runToEnd, sendMessage, streamOf, tickerRunTypes } from '../helpers/executions.js';
import { session, signUp } from '../helpers/factories.js';
import { type Client, client } from '../helpers/http.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { expectEventsWhole, expectLedgerBalanced } from './invariants.js';

/**
 * PostgreSQL answering but refusing a run's writes (as a full disk or a broken migration
 * would): here a trigger that rejects the run's messages while its closing events still go
 * in. The run must end as the service's failure, refunded, and its skill be stopped at
 * once. (It used to end as the skill's failure, "write EPIPE", unrefunded: the relay's
 * loop left on the error, which cut the skill's pipe, and the skill died of that.)
 */
let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = client(server.url);
});
afterAll(() => server.close());

async function asAdmin(statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: postgresUrl() });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/** Processes whose command line names this server's data folder: its skills (and their sandbox). */
async function skillProcesses(): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const command = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (command.includes(server.config.dataDir)) found.push(Number(entry));
  }
  return found;
}

describe('PostgreSQL refusing a running run’s writes', () => {
  it('the run fails as the service’s fault, its skill is stopped at once, and the next run succeeds', async () => {
    const schema = server.db.schema;
    if (!schema) throw new Error('the test database has no schema of its own');
    const owner = await signUp(api);
    const before = (await balanceOf(api, owner)).balance;
    // Twenty seconds of ticks: far longer than the wait for the skill to be gone.
    const created = await createExecution(api, owner, 'priced-ticker', '1000 20');
    const live = await streamOf(api, owner, created.id);
    expect((await sendMessage(api, owner, created.id, '1000 20')).status).toBe(200);
    await live.waitFor(4);
    expect(await skillProcesses()).not.toEqual([]);

    await asAdmin(`create function ${schema}.refuse_messages() returns trigger language plpgsql as
      $$ begin raise exception 'the disk is full (a test refusing writes)'; end $$`);
    await asAdmin(`create trigger refuse_messages before insert on ${schema}.execution_events
      for each row when (new.type = 'agent.message') execute function ${schema}.refuse_messages()`);
    try {
      await live.ended;
      await vi.waitFor(async () => expect(await skillProcesses()).toEqual([]), { timeout: 3000, interval: 50 });
    } finally {
      await asAdmin(`drop trigger refuse_messages on ${schema}.execution_events`);
      await asAdmin(`drop function ${schema}.refuse_messages()`);
    }

    expect(live.events.slice(-2)).toEqual([
      expect.objectContaining({
        type: 'agent.info',
        payload: { message: expect.stringMatching(/broke inside the service.*disk is full/) },
      }),
      expect.objectContaining({ type: 'session.status_idle', payload: { stop_reason: { type: 'error' } } }),
    ]);
    const status = await api.get<{ status: string }>(`/api/v1/executions/${created.id}/status`, { headers: session(owner) });
    expect(status.body.status).toBe('failed');
    expect((await balanceOf(api, owner)).balance).toBe(before);
    expect((await runToEnd(api, owner, 'ticker', '3 1')).stream.events.map((event) => event.type)).toEqual(tickerRunTypes(3));
    await expectEventsWhole(server.db.db);
    await expectLedgerBalanced(server.db.db);
  });

  it('a run whose closing events are refused for a while ends once the database takes writes again, without a restart', async () => {
    const schema = server.db.schema;
    if (!schema) throw new Error('the test database has no schema of its own');
    const owner = await signUp(api);
    const before = (await balanceOf(api, owner)).balance;
    const created = await createExecution(api, owner, 'priced-ticker', '1000 20');
    const live = await streamOf(api, owner, created.id);
    expect((await sendMessage(api, owner, created.id, '1000 20')).status).toBe(200);
    await live.waitFor(4);

    // Every event refused, the closing ones too, for most of a second.
    await asAdmin(`create function ${schema}.refuse_events() returns trigger language plpgsql as
      $$ begin raise exception 'the disk is full (a test refusing writes)'; end $$`);
    await asAdmin(`create trigger refuse_events before insert on ${schema}.execution_events
      for each row execute function ${schema}.refuse_events()`);
    try {
      await vi.waitFor(async () => expect(await skillProcesses()).toEqual([]), { timeout: 3000, interval: 50 });
      await new Promise((resolve) => setTimeout(resolve, 800));
    } finally {
      await asAdmin(`drop trigger refuse_events on ${schema}.execution_events`);
      await asAdmin(`drop function ${schema}.refuse_events()`);
    }

    await vi.waitFor(
      async () => {
        const status = await api.get<{ status: string }>(`/api/v1/executions/${created.id}/status`, { headers: session(owner) });
        expect(status.body.status).toBe('failed');
      },
      { timeout: 10_000, interval: 100 },
    );
    await live.ended;
    expect(live.events.slice(-2).map((event) => event.type)).toEqual(['agent.info', 'session.status_idle']);
    expect(live.events.map((event) => event.sequence)).toEqual(live.events.map((_, i) => i + 1));
    expect((await balanceOf(api, owner)).balance).toBe(before);
    await expectEventsWhole(server.db.db);
    await expectLedgerBalanced(server.db.db);
  });
});
