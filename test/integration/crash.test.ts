import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProject } from '../helpers/build.js';
import { createSchema, engineUnderTest, postgresUrl } from '../helpers/database.js';
import { createExecution, runToEnd, sendMessage, streamOf } from '../helpers/executions.js';
import { session, signUp } from '../helpers/factories.js';
import { client } from '../helpers/http.js';
import { freePort } from '../helpers/server.js';

let build: Awaited<ReturnType<typeof buildProject>>;
let dataDir: string;
let env: NodeJS.ProcessEnv;
let baseUrl: string;
let dropSchema: () => Promise<void> = async () => undefined;
const running = new Set<ChildProcess>();

beforeAll(async () => {
  build = await buildProject();
  dataDir = await mkdtemp(path.join(tmpdir(), 'skillet-crash-'));
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', PASSWORD_HASH_LOG_N: '10', DATABASE_URL: '' };
  if (engineUnderTest() === 'postgres') {
    const schema = await createSchema('crash');
    env.DATABASE_URL = `${postgresUrl()}?options=${encodeURIComponent(`-c search_path=${schema.name}`)}`;
    dropSchema = schema.drop;
  }
}, 60_000);

afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
  await build.remove();
  await rm(dataDir, { recursive: true, force: true });
  await dropSchema();
});

/** Starts `node dist/src/main.js` as a real process and waits until it answers. */
async function startProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(build.dir, 'src/main.js')], { env, stdio: 'ignore' });
  running.add(child);
  child.once('exit', () => running.delete(child));
  for (let attempt = 0; attempt < 200; attempt++) {
    const up = await fetch(`${baseUrl}/openapi.json`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) return child;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the server did not start');
}

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
});
