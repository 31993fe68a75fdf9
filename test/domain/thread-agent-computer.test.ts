import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, onTestFinished } from 'vitest';
import type { AppContext } from '../../src/context.js';
import type { CgroupHost } from '../../src/ports/sandbox.js';
import type { ThreadRef } from '../../src/ports/thread-records.js';
import { cgroupMounts, groupFolder, ownGroups } from '../../src/sandbox/cgroup-detection.js';
import { detectSandbox } from '../../src/sandbox/sandbox.js';
import { runThreadTurn } from '../../src/threads/thread-agent.js';
import type { FakeAnthropic } from '../fakes/anthropic.js';
import { AGENT_CREDITS } from '../helpers/agent.js';
import { aUser } from '../helpers/rows.js';
import { BOUNDED_SPACE_HERE, BUBBLEWRAP_HERE, KERNEL_LIMITS_HERE } from '../helpers/sandbox.js';
import { aThread, historyOf, MemorySink, said, withThreadAgent } from './thread-agent-fixture.js';

const it = withThreadAgent().extend(
  'computerCtx',
  { scope: 'file' },
  async ({ agentCtx }): Promise<AppContext> => ({ ...agentCtx, sandbox: await detectSandbox('auto') }),
);

const use = (id: string, name: string, input: Record<string, unknown>) => ({
  kind: 'reply' as const,
  blocks: [{ type: 'tool_use' as const, id, name, input }],
});
const done = { kind: 'reply' as const, blocks: [{ type: 'text' as const, text: 'Done.' }] };

/** The tool results the model was sent, by the id of the call they answer. */
function resultsSent(anthropic: FakeAnthropic, from: number): Map<string, { text: string; isError: boolean }> {
  const results = new Map<string, { text: string; isError: boolean }>();
  for (const request of anthropic.requests.slice(from)) {
    for (const message of request.body.messages as { content: unknown }[]) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content as { type: string; tool_use_id: string; content: unknown; is_error?: boolean }[]) {
        if (block.type === 'tool_result') {
          results.set(block.tool_use_id, { text: String(block.content), isError: block.is_error === true });
        }
      }
    }
  }
  return results;
}

/** The names of the tools offered in the request at `index`. */
function toolsOffered(anthropic: FakeAnthropic, index: number): string[] {
  const tools = (anthropic.requests[index]?.body.tools ?? []) as { name: string }[];
  return tools.map((tool) => tool.name);
}

/** `ctx` with its cgroup host counting the groups made, so a test sees whether a turn started a computer. */
function counting(ctx: AppContext): { ctx: AppContext; made: { groups: number } } {
  const host = ctx.sandbox.cgroups;
  const made = { groups: 0 };
  const cgroups: CgroupHost | undefined = host && {
    version: host.version,
    clearLeftovers: () => host.clearLeftovers(),
    create(limits) {
      made.groups += 1;
      return host.create(limits);
    },
  };
  return { ctx: { ...ctx, sandbox: { ...ctx.sandbox, cgroups } }, made };
}

/** The run groups of this process still in the kernel's hierarchy (where the server makes them, as detectCgroups does). */
async function runGroupsLeft(): Promise<string[]> {
  const mounts = cgroupMounts(await readFile('/proc/self/mountinfo', 'utf8'));
  const own = ownGroups(await readFile('/proc/self/cgroup', 'utf8'));
  const memory = mounts.v1.get('memory');
  const base = memory
    ? groupFolder(memory, own.get('memory') ?? '/')
    : mounts.v2 && groupFolder(mounts.v2, (own.get('') ?? '/').replace(/\/skillet-server$/, ''));
  if (!base) return [];
  const names = await readdir(path.join(base, 'skillet-runs')).catch(() => []);
  return names.filter((name) => name.startsWith(`run-${process.pid}-`));
}

/** The egress proxies' folders in the system's temporary folder (shared with whatever else runs here). */
const networkFolders = async () => (await readdir(tmpdir())).filter((name) => name.startsWith('skillet-net-'));

/** What a computer of `ctx` could leave on the host: run groups, its space's folder and mount. */
async function leftovers(ctx: AppContext) {
  const scratch = path.join(ctx.config.dataDir, 'scratch');
  const mountinfo = await readFile('/proc/self/mountinfo', 'utf8');
  return {
    groups: await runGroupsLeft(),
    spaces: (await readdir(scratch).catch(() => [])).filter((name) => name.endsWith('-space')),
    mounts: mountinfo.split('\n').filter((line) => line.includes(` ${scratch}/`)),
  };
}
const NOTHING_LEFT = { groups: [], spaces: [], mounts: [] };

async function turn(ctx: AppContext, thread: ThreadRef, text: string, signal = new AbortController().signal) {
  const sink = new MemorySink();
  await runThreadTurn(ctx, thread, historyOf(said(text)), sink, signal);
  return sink;
}

/** A skill folder installed into `workspaceId` under `slug`, as an install writes its row. */
async function installed(ctx: AppContext, workspaceId: string, slug: string): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), `skillet-installed-${slug}-`));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await mkdir(path.join(dir, 'scripts'));
  await writeFile(
    path.join(dir, 'SKILL.md'),
    `---\nname: ${slug}\ndescription: Installed for a test.\n---\nSecret of ${slug}.\n`,
  );
  await ctx.db
    .insertInto('workspace_skills')
    .values({ workspace_id: workspaceId, slug, artifact_id: null, dir, created_at: '2026-01-01T00:00:00.000Z' })
    .execute();
}

describe.runIf(BUBBLEWRAP_HERE && KERNEL_LIMITS_HERE)("the threads assistant's computer", () => {
  it("runs bash and reads a skill's SKILL.md under /mnt/skills, then leaves nothing behind", async ({
    computerCtx,
    anthropic,
  }) => {
    const { ctx, made } = counting(computerCtx);
    const user = await aUser(ctx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(ctx, user);
    const before = anthropic.requests.length;
    anthropic.plan(
      use('ls', 'bash', { command: 'ls /mnt/skills' }),
      use('md', 'read', { path: '/mnt/skills/shout-files/SKILL.md' }),
      use('rw', 'write', { path: '/mnt/skills/shout-files/SKILL.md', content: 'taken over' }),
      done,
    );
    const sink = await turn(ctx, thread, 'what does shout-files do?');
    expect(sink.of('agent.turn_end')).toMatchObject([{ stopReason: 'end_turn' }]);

    const system = String(anthropic.requests[before]?.body.system);
    expect(system).toContain('/mnt/skills/<slug>/');
    expect(system).toContain('Files for the person come only');
    const offered = toolsOffered(anthropic, before);
    expect(offered).toEqual(
      expect.arrayContaining(['list_skills', 'start_run', 'bash', 'read', 'write', 'edit', 'glob', 'grep']),
    );
    expect(offered).not.toContain('web_fetch');

    const sent = resultsSent(anthropic, before);
    const listed = sent.get('ls')?.text.split('\n') ?? [];
    expect(listed).toEqual(expect.arrayContaining(['shout-files', 'pdf', 'ticker', 'agent-plain', 'exit code 0']));
    const skillMd = await readFile(path.join(ctx.skills.get('shout-files')?.dir ?? '', 'SKILL.md'), 'utf8');
    expect(sent.get('md')?.text).toContain(`     1\t---\n     2\t${skillMd.split('\n')[1]}`);
    expect(sent.get('rw')?.isError).toBe(true);
    expect(await readFile(path.join(ctx.skills.get('shout-files')?.dir ?? '', 'SKILL.md'), 'utf8')).toBe(skillMd);
    expect(sink.of('tool.result')).toEqual([
      { type: 'tool.result', callId: 'ls', tool: 'bash', status: 'ok', summary: 'Running ls /mnt/skills' },
      { type: 'tool.result', callId: 'md', tool: 'read', status: 'ok', summary: 'Reading /mnt/skills/shout-files/SKILL.md' },
      expect.objectContaining({ callId: 'rw', tool: 'write', status: 'error' }),
    ]);
    expect(made.groups).toBe(1);
    expect(await leftovers(ctx)).toEqual(NOTHING_LEFT);
  });

  it('keeps its shell within a turn and starts afresh, with nothing kept, on the next', async ({ computerCtx, anthropic }) => {
    const { ctx, made } = counting(computerCtx);
    const user = await aUser(ctx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(ctx, user);
    const before = anthropic.requests.length;
    anthropic.plan(
      use('a', 'bash', { command: 'cd /tmp && export GREETING=hello && echo kept > /workspace/kept.txt' }),
      use('b', 'bash', { command: 'pwd; echo "$GREETING"; cat /workspace/kept.txt; echo out > /mnt/session/outputs/o.txt' }),
      done,
      use('c', 'bash', { command: 'pwd; echo "[$GREETING]"; ls /mnt/session/outputs; cat /workspace/kept.txt' }),
      done,
    );
    await turn(ctx, thread, 'remember this');
    const second = await turn(ctx, thread, 'what did you keep?');
    const sent = resultsSent(anthropic, before);
    expect(sent.get('b')?.text).toBe('/tmp\nhello\nkept\nexit code 0');
    expect(sent.get('c')).toEqual({ text: expect.stringMatching(/^\/workspace\n\[\]\n.*No such file/s), isError: true });
    expect(second.of('agent.turn_end')).toMatchObject([{ stopReason: 'end_turn' }]);
    expect(made.groups).toBe(2);
    expect(await leftovers(ctx)).toEqual(NOTHING_LEFT);
  });

  it("shows the workspace's own installed skills and not another workspace's", async ({ computerCtx, anthropic }) => {
    const ctx = computerCtx;
    const user = await aUser(ctx.db, { credits: AGENT_CREDITS });
    const other = await aUser(ctx.db);
    await installed(ctx, user.workspaceId, 'mine-only');
    await installed(ctx, other.workspaceId, 'theirs-only');
    const thread = await aThread(ctx, user);
    const before = anthropic.requests.length;
    anthropic.plan(
      use('ls', 'bash', { command: 'ls /mnt/skills | grep only; cat /mnt/skills/mine-only/SKILL.md | tail -1' }),
      use('theirs', 'read', { path: '/mnt/skills/theirs-only/SKILL.md' }),
      use('find', 'bash', {
        command: 'grep -rl "Secret of theirs-only" /mnt /tmp /workspace /opt /run /home /root 2>/dev/null; echo searched',
      }),
      done,
    );
    await turn(ctx, thread, 'which skills are mine?');
    const sent = resultsSent(anthropic, before);
    expect(sent.get('ls')?.text).toBe('mine-only\nSecret of mine-only.\nexit code 0');
    expect(sent.get('theirs')?.isError).toBe(true);
    expect(sent.get('find')?.text).toBe('searched\nexit code 0');
  });

  it('has the network and web_fetch only where the operator allows hosts, and never the metadata address', async ({
    computerCtx,
    anthropic,
  }) => {
    const executions = { ...computerCtx.config.executions, allowedHosts: ['example.invalid'] };
    const ctx = { ...computerCtx, config: { ...computerCtx.config, executions } };
    const user = await aUser(ctx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(ctx, user);
    const before = anthropic.requests.length;
    const networksBefore = await networkFolders();
    anthropic.plan(
      use('proxy', 'bash', { command: 'echo "$HTTPS_PROXY"' }),
      use('meta', 'web_fetch', { url: 'http://169.254.169.254/latest/meta-data/' }),
      done,
    );
    await turn(ctx, thread, 'fetch something');
    expect(toolsOffered(anthropic, before)).toContain('web_fetch');
    expect(String(anthropic.requests[before]?.body.system)).toContain('example.invalid');
    const sent = resultsSent(anthropic, before);
    expect(sent.get('proxy')?.text).toBe('http://127.0.0.1:3128\nexit code 0');
    expect(sent.get('meta')?.isError).toBe(true);
    expect(await leftovers(ctx)).toEqual(NOTHING_LEFT);
    expect((await networkFolders()).filter((name) => !networksBefore.includes(name))).toEqual([]);
  });

  it('starts no sandbox in a turn that never uses it', async ({ computerCtx, anthropic }) => {
    const { ctx, made } = counting(computerCtx);
    const user = await aUser(ctx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(ctx, user);
    const before = anthropic.requests.length;
    anthropic.plan(use('list', 'list_skills', {}), done);
    const sink = await turn(ctx, thread, 'what can I run?');
    expect(sink.of('agent.turn_end')).toMatchObject([{ stopReason: 'end_turn' }]);
    expect(String(anthropic.requests[before]?.body.system)).toContain('You have a computer for this turn');
    expect(made.groups).toBe(0);
    expect(await leftovers(ctx)).toEqual(NOTHING_LEFT);
  });

  it('stops a command past the computer memory limit alone, naming it; the turn goes on', async ({ computerCtx, anthropic }) => {
    const small = { ...computerCtx.config.executions, computerMemoryMb: 64 };
    const { ctx } = counting({ ...computerCtx, config: { ...computerCtx.config, executions: small } });
    const user = await aUser(ctx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(ctx, user);
    onTestFinished(() => anthropic.forgetPlans());
    const before = anthropic.requests.length;
    anthropic.plan(
      use('hog', 'bash', { command: `python3 -c "x = b'a' * (400 * 1024 * 1024); print(len(x))"` }),
      use('after', 'bash', { command: 'echo after' }),
      done,
    );
    const sink = await turn(ctx, thread, 'use a lot of memory');
    const results = resultsSent(anthropic, before);
    expect(results.get('hog')).toMatchObject({
      text: expect.stringMatching(/^The command was stopped: a process of it passed the computer's memory limit of 64 MiB/),
      isError: true,
    });
    expect(results.get('after')).toEqual({ text: 'after\nexit code 0', isError: false });
    expect(sink.of('agent.turn_end')).toMatchObject([{ stopReason: 'end_turn' }]);
    expect(await leftovers(ctx)).toEqual(NOTHING_LEFT);
  });

  it('ends the turn when the computer runs past the run time limit, on the injected clock', async ({
    computerCtx,
    domain,
    anthropic,
  }) => {
    const { ctx } = counting(computerCtx);
    const user = await aUser(ctx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(ctx, user);
    onTestFinished(() => anthropic.forgetPlans());
    anthropic.plan(use('sleep', 'bash', { command: 'sleep 25' }), done);
    const sink = new MemorySink();
    const stop = new AbortController();
    const turnDone = runThreadTurn(ctx, thread, historyOf(said('wait')), sink, stop.signal);
    // Should the test fail midway, its turn still ends and removes its computer before the next test.
    onTestFinished(async () => {
      stop.abort();
      await turnDone;
    });
    // The computer's time is counted from its start: move the clock on until the turn has ended.
    const { timeoutMs } = ctx.config.executions;
    await expect
      .poll(
        () => {
          domain.clock.advance(timeoutMs);
          return sink.of('agent.turn_end').length;
        },
        { timeout: 20_000, interval: 100 },
      )
      .toBe(1);
    await turnDone;
    expect(sink.of('agent.turn_end')[0]?.reason).toMatch(/the assistant's computer ran longer than its limit of \d+ ms/);
    expect(await leftovers(ctx)).toEqual(NOTHING_LEFT);
  });

  it('ends the sandbox at once when the turn is stopped mid-command', async ({ computerCtx, anthropic }) => {
    const ctx = computerCtx;
    const user = await aUser(ctx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(ctx, user);
    onTestFinished(() => anthropic.forgetPlans());
    anthropic.plan(use('sleep', 'bash', { command: 'sleep 25' }), done);
    const stop = new AbortController();
    const sink = new MemorySink();
    const started = Date.now();
    const turnDone = runThreadTurn(ctx, thread, historyOf(said('wait')), sink, stop.signal);
    onTestFinished(async () => {
      stop.abort();
      await turnDone;
    });
    // What the checks after each turn look for is there while the computer runs.
    const mountsWhileRunning = BOUNDED_SPACE_HERE ? 1 : 0;
    await expect
      .poll(
        async () => {
          const running = await leftovers(ctx);
          return [running.groups.length, running.spaces.length, running.mounts.length];
        },
        { timeout: 10_000 },
      )
      .toEqual([1, 1, mountsWhileRunning]);
    stop.abort(new Error('The person stopped the turn'));
    await turnDone;
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(sink.of('agent.turn_end')).toMatchObject([{ stopReason: 'error', reason: expect.stringMatching(/stopped/) }]);
    expect(await leftovers(ctx)).toEqual(NOTHING_LEFT);
  });
});

describe('the threads assistant without a computer', () => {
  it('works on with its own tools, and its prompt does not mention a computer', async ({ agentCtx, anthropic }) => {
    // agentCtx has no bubblewrap nor cgroup control, as a server without them.
    const user = await aUser(agentCtx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(agentCtx, user);
    const before = anthropic.requests.length;
    anthropic.plan(use('b', 'bash', { command: 'ls /' }), done);
    const sink = await turn(agentCtx, thread, 'run ls');
    expect(sink.of('agent.turn_end')).toMatchObject([{ stopReason: 'end_turn' }]);
    const system = String(anthropic.requests[before]?.body.system);
    expect(system).not.toMatch(/computer|\/mnt\/skills|bash/);
    const offered = toolsOffered(anthropic, before);
    expect(offered).toEqual(['list_skills', 'start_run', 'get_execution', 'list_artifacts', 'read_artifact']);
    expect(resultsSent(anthropic, before).get('b')).toEqual({
      text: expect.stringMatching(/There is no tool bash/),
      isError: true,
    });
  });

  it("is not given to an agent skill's thread", async ({ computerCtx, anthropic }) => {
    const user = await aUser(computerCtx.db, { credits: AGENT_CREDITS });
    const thread = await aThread(computerCtx, user, 'agent-plain');
    const before = anthropic.requests.length;
    anthropic.plan(done);
    await turn(computerCtx, thread, 'hello');
    const offered = toolsOffered(anthropic, before);
    expect(offered).not.toContain('bash');
  });
});
