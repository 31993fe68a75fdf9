import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecution, sendMessage, streamOf } from '../../helpers/executions.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import { type Client, client } from '../../helpers/http.js';
import { type ServerProcesses, serverProcesses } from '../../helpers/process.js';

let servers: ServerProcesses;

beforeAll(async () => {
  servers = await serverProcesses('sigterm', { SHUTDOWN_GRACE_SECONDS: '2' });
}, 60_000);

afterAll(() => servers.cleanUp());

async function startedRun(api: Client, user: TestUser, input: string) {
  const created = await createExecution(api, user, 'ticker', input);
  const stream = await streamOf(api, user, created.id);
  expect((await sendMessage(api, user, created.id, input)).status).toBe(200);
  await stream.waitFor(3);
  return { id: created.id, stream };
}

describe('the built server sent SIGTERM', () => {
  it('finishes a run shorter than SHUTDOWN_GRACE_SECONDS, stops a longer one at the end of it, and exits', async () => {
    const first = await servers.start();
    const api = client(servers.baseUrl);
    const quick = await signUp(api);
    const slow = await signUp(api);
    const short = await startedRun(api, quick, '8 100');
    const long = await startedRun(api, slow, '1000 100');

    const signalled = Date.now();
    first.kill('SIGTERM');
    await short.stream.ended;
    expect(short.stream.events.at(-1)).toMatchObject({ payload: { stop_reason: { type: 'end_turn' } } });
    await once(first, 'exit');
    const took = Date.now() - signalled;
    expect(took).toBeGreaterThanOrEqual(1900);
    expect(took).toBeLessThan(10_000);
    expect(first.exitCode).toBe(0);

    const second = await servers.start();
    const statusOf = async (user: TestUser, id: string) =>
      (await api.get<{ status: string }>(`/api/v1/executions/${id}/status`, { headers: session(user) })).body.status;
    expect(await statusOf(quick, short.id)).toBe('completed');
    // Stopped at the grace period's end, as an interrupt: idle, to be resumed, not failed at the next start.
    expect(await statusOf(slow, long.id)).toBe('idle');
    // Its stream saw the closing events before the server ended the streams.
    await long.stream.ended;
    expect(long.stream.events.at(-1)).toMatchObject({
      type: 'session.status_idle',
      payload: { stop_reason: { type: 'interrupt' } },
    });

    second.kill('SIGTERM');
    await once(second, 'exit');
  });
});
