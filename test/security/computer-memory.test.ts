import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, onTestFinished, it as plainIt } from 'vitest';
import { runComputerTool } from '../../src/runtime/computer/computer-tools.js';
import { openComputer } from '../../src/sandbox/computer/open-computer.js';
import { detectSandbox } from '../../src/sandbox/sandbox.js';
import type { FakeAnthropic } from '../fakes/anthropic.js';
import { runAgent, stopReasonOf, withAgentServer } from '../helpers/agent.js';
import { signUp } from '../helpers/factories.js';
import type { Client } from '../helpers/http.js';
import { BOUNDED_SPACE_HERE, BUBBLEWRAP_HERE, KERNEL_LIMITS_HERE, removeDataFolder } from '../helpers/sandbox.js';

const it = withAgentServer();

const MIB = 1024 * 1024;
/** A small computer, so a command passes its memory in a moment. */
const SMALL_COMPUTER = { COMPUTER_MEMORY_MB: '128', SKILL_WORKSPACE_LIMIT_BYTES: String(16 * MIB) };
const NAMES_THE_LIMIT = /passed the computer's memory limit of 128 MiB/;
/** Allocates 400 MiB, writing every page, then says it got through (it must not). */
const HOG = `python3 -c "x = b'a' * (400 << 20); print('survived')"`;

const bash = (id: string, command: string) => ({
  kind: 'reply' as const,
  blocks: [{ type: 'tool_use' as const, id, name: 'bash', input: { command } }],
  usage: { input: 1, output: 1 },
});
const done = { kind: 'reply' as const, blocks: [{ type: 'text' as const, text: 'Done.' }], usage: { input: 1, output: 1 } };

type Fixtures = { anthropic: FakeAnthropic; ownServer: (env: Record<string, string>) => Promise<Client> };
interface Told {
  content: string;
  isError: boolean;
}

/** Runs computer-hostile on a small computer, the model sending `commands` to bash in turn; what it was told, and how the run ended. */
async function runCommands({ anthropic, ownServer }: Fixtures, ...commands: string[]) {
  const api = await ownServer(SMALL_COMPUTER);
  const person = await signUp(api);
  anthropic.forgetPlans();
  const before = anthropic.requests.length;
  anthropic.plan(...commands.map((command, index) => bash(`c${index}`, command)), done);
  const events = await runAgent(api, person, 'computer-hostile', 'Run the commands.');
  const results = anthropic.requests
    .slice(before)
    .flatMap((request) =>
      (request.body.messages as { content: unknown }[]).flatMap((message) =>
        Array.isArray(message.content)
          ? (message.content as { type: string; content?: unknown; is_error?: boolean }[])
              .filter((block) => block.type === 'tool_result')
              .map((block): Told => ({ content: String(block.content), isError: block.is_error === true }))
          : [],
      ),
    );
  return {
    stopReason: stopReasonOf(events),
    info: events.filter((event) => event.type === 'agent.info').map((event) => String(event.payload.message)),
    // The last request holds every result so far, in order.
    told: results.slice(-commands.length),
  };
}

/**
 * A command that passes the computer's memory limit is stopped alone (issue 49): the kernel
 * ends the process in the run's group, the model's call answers with an error naming the
 * limit, and the run goes on with its shell and files. Before, the first such kill ended the
 * whole run with stop reason error, and the model never heard why.
 */
describe.runIf(BUBBLEWRAP_HERE && KERNEL_LIMITS_HERE && BOUNDED_SPACE_HERE)('a command past the computer memory', () => {
  it('is stopped alone, the model is told the limit, and the next call works in the same shell', async ({
    anthropic,
    ownServer,
  }) => {
    const ending = await runCommands(
      { anthropic, ownServer },
      `export MARK=shell-kept; echo kept > /workspace/kept.txt; ${HOG}`,
      'echo "$MARK" && cat /workspace/kept.txt',
    );
    expect(ending.told[0]?.isError).toBe(true);
    expect(ending.told[0]?.content).toMatch(
      /^The command was stopped: a process of it passed the computer's memory limit of 128 MiB/,
    );
    expect(ending.told[0]?.content).not.toMatch(/^survived$/m);
    // The supervisor and the shell outlived the kill: the variable is still there.
    expect(ending.told[1]).toEqual({ content: 'shell-kept\nkept\nexit code 0', isError: false });
    expect(ending.stopReason).toBe('end_turn');
    expect(ending.info.join('\n')).not.toMatch(/memory/);
  });

  it('tells of a background process the kernel stopped, beside a command that finished', async ({ anthropic, ownServer }) => {
    const ending = await runCommands(
      { anthropic, ownServer },
      `${HOG} > /dev/null 2>&1 & wait $!; echo "waited: $?"`,
      'echo after',
    );
    expect(ending.told[0]?.isError).toBe(false);
    expect(ending.told[0]?.content).toMatch(/^Note: during this command a process in the computer passed the computer's memory/);
    expect(ending.told[0]?.content).toMatch(/\nwaited: 137\n.*Killed.*\nexit code 0$/s);
    expect(ending.told[1]).toEqual({ content: 'after\nexit code 0', isError: false });
    expect(ending.stopReason).toBe('end_turn');
  });

  it('goes on when the kernel stops the supervisor itself: the computer starts again, the call names the limit', async ({
    anthropic,
    ownServer,
  }) => {
    // The shell gives up its extra score, and socket buffers grow in no process's count: the
    // supervisor is then the largest process the kernel can choose.
    const ending = await runCommands(
      { anthropic, ownServer },
      'echo kept > /workspace/kept.txt; echo 0 > /proc/self/oom_score_adj; python3 /mnt/skills/computer-hostile/scripts/hoard.py',
      'cat /workspace/kept.txt',
    );
    expect(ending.told[0]).toEqual({
      content: expect.stringMatching(
        /^The command was stopped: a process in the computer passed the computer's memory limit of 128 MiB, and the computer stopped with it\. The next call starts it again/,
      ),
      isError: true,
    });
    expect(ending.told[1]).toEqual({
      content: expect.stringMatching(/^kept\nexit code 0\nNote: the computer had stopped and was started again/),
      isError: false,
    });
    expect(ending.stopReason).toBe('end_turn');
  });

  it('holds against a swarm of allocators that give up their extra score: the run goes on', async ({ anthropic, ownServer }) => {
    const ending = await runCommands(
      { anthropic, ownServer },
      'echo kept > /workspace/kept.txt; python3 /mnt/skills/computer-hostile/scripts/swarm.py 12',
      'cat /workspace/kept.txt',
    );
    // The shell, the one process left with the extra score, is the kernel's choice: the
    // supervisor starts a new one and ends what the old one ran, the swarm with it.
    expect(ending.told[0]?.isError).toBe(true);
    expect(ending.told[0]?.content).toMatch(NAMES_THE_LIMIT);
    expect(ending.told[0]?.content).toMatch(/The shell exited, so a new one was started/);
    expect(ending.told[1], JSON.stringify(ending.told)).toMatchObject({
      content: expect.stringMatching(/(^|\n)kept\n/),
      isError: false,
    });
    expect(ending.stopReason).toBe('end_turn');
  });
});

/** The kernel's count of memory kills in `group`'s folders (v1's memory.oom_control, v2's memory.events), read as the test waits. */
async function kernelKills(procsFiles: readonly string[]): Promise<number> {
  for (const file of procsFiles) {
    for (const name of ['memory.oom_control', 'memory.events']) {
      const text = await readFile(path.join(path.dirname(file), name), 'utf8').catch(() => '');
      const match = /^oom_kill (\d+)$/m.exec(text);
      if (match) return Number(match[1]);
    }
  }
  return 0;
}

describe.runIf(BUBBLEWRAP_HERE && KERNEL_LIMITS_HERE)('a background process past the computer memory, between calls', () => {
  plainIt('is told on the next call, whatever tool it is', async () => {
    const sandbox = await detectSandbox('auto');
    const dataDir = await mkdtemp(path.join(tmpdir(), 'computer-memory-'));
    onTestFinished(() => removeDataFolder(dataDir));
    const group = await sandbox.cgroups?.create({ memoryBytes: 128 * MIB, processes: 64, cpuSeconds: 60 });
    if (!group) throw new Error('no run group');
    onTestFinished(() => group.remove());
    const services = {
      sandbox,
      config: { executions: { workspaceLimitBytes: 16 * MIB, allowedHosts: [] }, webhooks: { allowPrivateAddresses: false } },
      log: { info: () => undefined },
    };
    const plan = { spaceDir: path.join(dataDir, 'space'), skills: [], outputDir: undefined, uploadsDir: undefined };
    const computer = await openComputer(services, plan, group);
    onTestFinished(() => computer.release());
    const context = {
      computer: computer.session,
      bashPrefixes: [],
      memory: { limitMb: 128, answerKills: () => group.answerMemoryKills() },
    };
    const started = await runComputerTool(
      'bash',
      { command: `echo kept > /workspace/kept.txt; (sleep 0.5; ${HOG}) > /dev/null 2>&1 & echo started` },
      context,
    );
    expect(started.text).toBe('started\nexit code 0');
    await expect.poll(() => kernelKills(group.procsFiles), { timeout: 10_000 }).toBe(1);
    const read = await runComputerTool('read', { path: '/workspace/kept.txt' }, context);
    expect(read.text).toMatch(
      /^Note: since the last call a process still running in the computer \(one left in the background\) passed the computer's memory limit of 128 MiB/,
    );
    expect(read.text).toMatch(/kept/);
    // Told once: the next call has nothing to add.
    const again = await runComputerTool('bash', { command: 'echo again' }, context);
    expect(again.text).toMatch(/^again\n/);
    expect(again.text).not.toMatch(/memory limit/);
  });
});
