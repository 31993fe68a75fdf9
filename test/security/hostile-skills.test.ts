import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { outputSpace } from '../../src/sandbox/run-space.js';
import { BUILT_INS_ONLY } from '../../src/sandbox/sandbox.js';
import { createExecution, runToEnd, streamOf } from '../helpers/executions.js';
import { createTeam, session, signUp, type TestUser } from '../helpers/factories.js';
import { type Client, client } from '../helpers/http.js';
import { type ServerProcesses, serverProcesses } from '../helpers/process.js';
import { BOUNDED_SPACE_HERE, BUBBLEWRAP_HERE } from '../helpers/sandbox.js';
import { startServer } from '../helpers/server.js';
import type { StreamEvent } from '../helpers/sse.js';

/**
 * One hostile skill per finding of the first attack run (issue 11, findings 2 to 8), each
 * run through a real server process with the sandbox on. Every attack must end in a failed
 * run that names the limit it hit, with the server up, its memory bounded, and nothing
 * written outside the run's own folder.
 */
const HOSTILE_SKILLS = path.join(PROJECT_ROOT, 'test/security/skills');
const MIB = 1024 * 1024;
const OUTPUT_LIMIT = 8 * MIB;
const OUTPUT_FILES = 16;
/** What the output folder's tmpfs holds at most where the server may mount (skills/run-space.ts). */
const OUTPUT_BOUND = outputSpace({ outputBytes: OUTPUT_LIMIT, outputFiles: OUTPUT_FILES }).bytes;
const SETTINGS = {
  SKILLS_DIR: HOSTILE_SKILLS,
  SKILL_SANDBOX: 'auto',
  SKILL_MEMORY_MB: '128',
  SKILL_CPU_SECONDS: '2',
  SKILL_OUTPUT_LIMIT_BYTES: String(OUTPUT_LIMIT),
  // Small, so that the output folder's kernel bound (a page more per allowed file) stays near the limit.
  SKILL_OUTPUT_FILE_LIMIT: String(OUTPUT_FILES),
  RUNS_PER_USER: '2',
  RUNS_PER_SERVER: '3',
  EXECUTION_TIMEOUT_MS: '60000',
  RATE_LIMIT_REST_PER_MINUTE: '100000',
  RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000',
  // The attacks meet warm sandboxes as production runs them (skills/script-pool.ts).
  SCRIPT_POOL_SIZE: '2',
  COMPUTER_POOL_SIZE: '2',
};
/** Far above an idle server (about 100 MiB) and far below what the attacks reached unconfined. */
const SERVER_RESIDENT_LIMIT = 400 * MIB;

let servers: ServerProcesses;
let server: ChildProcess;
let api: Client;
let person: TestUser;
const marker = `skillet-pwned-${randomUUID()}`;

beforeAll(async () => {
  servers = await serverProcesses('security', SETTINGS);
  server = await servers.start();
  api = client(servers.baseUrl);
}, 120_000);
afterAll(() => servers?.cleanUp());
beforeEach(async () => {
  person = await signUp(api);
});

async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]) * 1024;
}

/**
 * Every file under `dir` with its size and time, but the database (it changes with every
 * request) and scratch/ (runs write there, and a run's folders are cleared just after it
 * ends: a walk into it can find a folder gone).
 */
async function filesUnder(dir: string): Promise<string[]> {
  const listing: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (/skillet\.db/.test(entry.name) || (entry.name === 'scratch' && dir === servers.dataDir)) continue;
    if (entry.isDirectory()) listing.push(...(await filesUnder(file)));
    const info = await stat(file);
    listing.push(`${file} ${info.size} ${info.mtimeMs}`);
  }
  return listing;
}

/** Every file under the places a skill must not touch, with its size and time. */
async function filesOutsideRuns(): Promise<string[]> {
  return [...(await filesUnder(HOSTILE_SKILLS)), ...(await filesUnder(servers.dataDir))].sort();
}

async function attack(slug: string, input: object = {}, user = person) {
  const before = await filesOutsideRuns();
  const text = JSON.stringify({ dataDir: servers.dataDir, marker, ...input });
  const { stream } = await runToEnd(api, user, slug, text);
  const after = await filesOutsideRuns();
  return { events: stream.events, before, after };
}

function ending(events: StreamEvent[]) {
  return {
    stopReason: events.at(-1)?.payload.stop_reason,
    info: events.findLast((event) => event.type === 'agent.info')?.payload.message,
    messages: events.filter((event) => event.type === 'agent.message').map((event) => JSON.stringify(event.payload)),
  };
}

/** What every attack must leave behind: a failed run naming its limit, and a healthy server. */
async function expectContained(run: Awaited<ReturnType<typeof attack>>, limit: RegExp) {
  const { stopReason, info } = ending(run.events);
  expect(stopReason).toEqual({ type: 'error' });
  expect(info).toMatch(limit);
  expect(run.after).toEqual(run.before);
  expect(existsSync(`/tmp/${marker}`)).toBe(false);
  expect(server.exitCode).toBeNull();
  expect((await api.get('/api/v1/marketplace/skills', { headers: session(person) })).status).toBe(200);
  expect(await residentBytes(server.pid as number)).toBeLessThan(SERVER_RESIDENT_LIMIT);
}

describe.runIf(BUBBLEWRAP_HERE)('hostile skills in the sandbox', () => {
  it('cannot kill the server: its parent is the sandbox, not the server (finding 2)', async () => {
    const run = await attack('kills-server');
    await expectContained(run, /CPU time limit of 2 seconds/);
    const messages = ending(run.events).messages.join('\n');
    expect(messages).toMatch(/write .*: refused/);
    expect(messages).not.toMatch(/write .*: done/);
  });

  it('cannot make the server buffer 600 MiB of one line (finding 3)', async () => {
    await expectContained(await attack('floods-stdout'), /protocol line longer than its limit of 1048576 bytes/);
  });

  it('reaches no service on this machine: not the API, PostgreSQL or Redis, nor their sockets (finding 4)', async () => {
    const ports = [Number(new URL(servers.baseUrl).port), 5432, 6379];
    const run = await attack('dials-out', { ports });
    await expectContained(run, /no connection went through/);
    const messages = ending(run.events).messages;
    expect(messages).toHaveLength(ports.length * 2 + 2);
    for (const message of messages) expect(message).not.toContain('CONNECTED');
  });

  it('cannot hold memory outside the V8 heap past its limit (finding 5)', async () => {
    const run = await attack('hogs-memory');
    await expectContained(run, /memory limit of 128 MiB/);
    expect(ending(run.events).messages.join('\n')).not.toContain('holding');
  });

  // Where the server may mount, the output folder is a tmpfs of its own and the kernel holds
  // the writer to its bound. Elsewhere the bound is the watchdog's, which reacts in the
  // server's event loop: on a machine loaded by the rest of the suite it has let a writer
  // reach 27 MiB and once 138 MiB before the kill, so there one retry keeps CI readable.
  it('cannot write past its output limit while it runs (finding 6)', { retry: BOUNDED_SPACE_HERE ? 0 : 1 }, async () => {
    let largest = 0;
    const scratch = path.join(servers.dataDir, 'scratch');
    const watching = setInterval(async () => {
      const files = await readdir(scratch, { recursive: true, withFileTypes: true }).catch(() => []);
      let total = 0;
      for (const file of files) {
        // A warm sandbox's shelf holds links to the skill's own files, not what the run wrote.
        if (file.isFile() && !/-skills?([/\\]|$)/.test(file.parentPath))
          total += await stat(path.join(file.parentPath, file.name)).then(
            (info) => info.size,
            () => 0,
          );
      }
      largest = Math.max(largest, total);
    }, 5);
    const run = await attack('fills-disk');
    clearInterval(watching);
    await expectContained(run, new RegExp(`output limit of ${OUTPUT_LIMIT} bytes`));
    // No file may pass the limit (a file-size rlimit), and the watchdog sizes each file inotify
    // names as the event arrives: the writer is stopped a few writes past the limit. With 100 ms
    // ticks alone it reached 57 MiB; on a loaded 2-CPU machine the event path stays near 10-17 MiB.
    expect(largest).toBeLessThan(3 * OUTPUT_LIMIT);
    if (BOUNDED_SPACE_HERE) expect(largest).toBeLessThanOrEqual(OUTPUT_BOUND);
  });

  // Without the right to mount, a look at the folder's files is all there is, and it cannot see these.
  it.runIf(BOUNDED_SPACE_HERE)('cannot hide output in deleted files it keeps open (issue 27)', async () => {
    const run = await attack('hides-output');
    await expectContained(run, new RegExp(`output limit of ${OUTPUT_LIMIT} bytes`));
    const messages = ending(run.events).messages.join('\n');
    // The watch may end it before it says how far it got; when it did say, the first file
    // stopped at the file-size limit and the second at the folder's bound.
    const held = /held (\d+) bytes in deleted files, stopped by (\w+)/.exec(messages);
    if (held) expect([held[2], Number(held[1]) <= OUTPUT_BOUND]).toEqual(['ENOSPC', true]);
    expect(messages).not.toContain('still holding');
  });

  it('cannot stream unbounded events into the database (finding 7)', async () => {
    const run = await attack('streams-events');
    // Which limit ends it depends on how fast the server reads: the event limit, or, when the
    // server is slow under load and the skill's own buffers grow, its memory limit. Either
    // way what reached the database is bounded, which is what is checked below.
    await expectContained(run, /more than its limit of 8388608 bytes of events|memory limit of 128 MiB/);
    const streamed = run.events.reduce((sum, event) => sum + JSON.stringify(event).length, 0);
    expect(streamed).toBeLessThan(9 * MIB);
  });

  it('cannot saturate the machine: runs per user and per server are capped, and each spin ends at its CPU limit (finding 8)', async () => {
    const teams = await Promise.all([1, 2, 3].map(() => createTeam(api, person)));
    const start = async (user: TestUser, headers: Record<string, string>) => {
      const created = await createExecution(api, user, 'spins', 'spin', {}, headers);
      const stream = await streamOf(api, user, created.id, '', headers);
      const reply = await api.post<{ error: string; message: string }>(`/api/v1/executions/${created.id}/events`, {
        body: { events: [{ type: 'user.message', content: [{ type: 'text', text: 'spin' }] }] },
        headers,
      });
      return { id: created.id, reply, stream };
    };
    const [first, second, third] = [
      await start(person, session(person, { 'x-workspace-id': teams[0]?.id ?? '' })),
      await start(person, session(person, { 'x-workspace-id': teams[1]?.id ?? '' })),
      await start(person, session(person, { 'x-workspace-id': teams[2]?.id ?? '' })),
    ];
    expect([first.reply.status, second.reply.status]).toEqual([200, 200]);
    expect(third.reply.status).toBe(429);
    expect(third.reply.body).toEqual({ error: 'EXECUTION_RUNNING', message: expect.stringMatching(/2 runs in progress/) });

    const other = await signUp(api);
    const elsewhere = await start(other, session(other));
    expect(elsewhere.reply.status).toBe(200);
    const stranger = await signUp(api);
    const overServer = await start(stranger, session(stranger));
    expect(overServer.reply.status).toBe(429);
    expect(overServer.reply.body.message).toMatch(/as many skills as it may at once \(3\)/);

    for (const { stream } of [first, second, elsewhere]) {
      await stream.ended;
      const { stopReason, info } = ending(stream.events);
      expect(stopReason).toEqual({ type: 'error' });
      expect(info).toMatch(/CPU time limit of 2 seconds/);
    }
    overServer.stream.close();
    // Once those have ended, the refused execution starts.
    const thirdHeaders = session(person, { 'x-workspace-id': teams[2]?.id ?? '' });
    const retried = await api.post(`/api/v1/executions/${third.id}/events`, {
      body: { events: [{ type: 'user.message', content: [{ type: 'text', text: 'spin' }] }] },
      headers: thirdHeaders,
    });
    expect(retried.status).toBe(200);
    await third.stream.ended;
    expect(ending(third.stream.events).info).toMatch(/CPU time limit of 2 seconds/);
  });
});

describe('hostile skills on a server without bubblewrap', () => {
  it('are refused with a message that says how to enable the sandbox', async () => {
    const unsandboxed = await startServer({ SKILLS_DIR: HOSTILE_SKILLS, SKILL_SANDBOX: 'auto' }, { sandbox: BUILT_INS_ONLY });
    try {
      const own = client(unsandboxed.url);
      const { stream } = await runToEnd(own, await signUp(own), 'kills-server', JSON.stringify({ marker }));
      const { stopReason, info } = ending(stream.events);
      expect(stopReason).toEqual({ type: 'error' });
      expect(info).toMatch(/sandbox is not available on this server.*apt-get install bubblewrap/);
      expect(ending(stream.events).messages).toEqual([]);
    } finally {
      await unsandboxed.close();
    }
  });
});
