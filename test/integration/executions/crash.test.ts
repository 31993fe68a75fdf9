import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceOf, transactionsOf } from '../../helpers/billing.js';
import { createExecution, runToEnd, sendMessage, streamOf } from '../../helpers/executions.js';
import { session, signUp } from '../../helpers/factories.js';
import { client } from '../../helpers/http.js';
import { type ServerProcesses, serverProcesses } from '../../helpers/process.js';

let servers: ServerProcesses;
let baseUrl: string;

beforeAll(async () => {
  servers = await serverProcesses('crash', { SIGNUP_CREDITS: '10' });
  baseUrl = servers.baseUrl;
}, 60_000);

afterAll(() => servers.cleanUp());

const startProcess = () => servers.start();

describe('a server killed with SIGKILL during a run', () => {
  it('comes back with the run failed, its stream replaying and ending, and nothing else lost', async () => {
    const first = await startProcess();
    const api = client(baseUrl);
    const owner = await signUp(api);
    const { created: earlier, stream: earlierStream } = await runToEnd(api, owner, 'ticker', '3 1');

    const victim = await createExecution(api, owner, 'ticker', '100 100');
    const live = await streamOf(api, owner, victim.id);
    expect((await sendMessage(api, owner, victim.id, '100 100')).status).toBe(200);
    await live.waitFor(6);
    first.kill('SIGKILL');
    await once(first, 'exit');
    await live.ended;
    expect(live.droppedBy).toBeDefined();

    const second = await startProcess();
    const status = await api.get<{ status: string }>(`/api/v1/executions/${victim.id}/status`, { headers: session(owner) });
    expect(status.body.status).toBe('failed');
    const replay = await streamOf(api, owner, victim.id);
    await replay.ended;
    const sequences = replay.events.map((event) => event.sequence);
    expect(sequences).toEqual(Array.from({ length: sequences.length }, (_, i) => i + 1));
    expect(replay.events.slice(0, live.events.length)).toEqual(live.events);
    expect(replay.events.slice(-2)).toEqual([
      expect.objectContaining({ type: 'agent.info', payload: { message: expect.stringContaining('server stopped') } }),
      expect.objectContaining({ type: 'session.status_idle', payload: { stop_reason: { type: 'error' } } }),
    ]);

    // Everything from before the crash is still there: the session, the earlier run.
    const again = await streamOf(api, owner, earlier.id);
    await again.ended;
    expect(again.events).toEqual(earlierStream.events);
    expect((await runToEnd(api, owner, 'ticker', '1 1')).stream.events.at(-1)?.type).toBe('session.status_idle');

    second.kill('SIGTERM');
    await once(second, 'exit');
  });

  it('gives back the price of a run it cut off', async () => {
    const first = await startProcess();
    const api = client(baseUrl);
    const payer = await signUp(api);
    const before = await balanceOf(api, payer);
    const victim = await createExecution(api, payer, 'priced-ticker', '100 100');
    const live = await streamOf(api, payer, victim.id);
    expect((await sendMessage(api, payer, victim.id, '100 100')).status).toBe(200);
    await live.waitFor(4);
    expect((await balanceOf(api, payer)).balance).toBe(before.balance - 2);
    first.kill('SIGKILL');
    await once(first, 'exit');
    await live.ended;

    const second = await startProcess();
    expect((await balanceOf(api, payer)).balance).toBe(before.balance);
    const ledger = await transactionsOf(api, payer);
    expect(ledger[0]).toMatchObject({ type: 'purchase', amount: 2, description: expect.stringMatching(/^Refund of run /) });
    expect(ledger[1]).toMatchObject({ type: 'usage', amount: -2, executionId: victim.id });
    second.kill('SIGTERM');
    await once(second, 'exit');
  });
});
