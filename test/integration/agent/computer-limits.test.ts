import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect } from 'vitest';
import type { Env } from '../../../src/config.js';
import { runMountsUnder } from '../../../src/sandbox/run-space.js';
import type { FakeAnthropic } from '../../fakes/anthropic.js';
import { runAgent, stopReasonOf, withAgentServer } from '../../helpers/agent.js';
import { signUp } from '../../helpers/factories.js';
import type { Client } from '../../helpers/http.js';
import { BOUNDED_SPACE_HERE, BUBBLEWRAP_HERE, KERNEL_LIMITS_HERE, removeDataFolder } from '../../helpers/sandbox.js';

const it = withAgentServer();

const MIB = 1024 * 1024;
const LIMITS = {
  COMPUTER_MEMORY_MB: '128',
  SKILL_WORKSPACE_LIMIT_BYTES: String(16 * MIB),
  SKILL_OUTPUT_LIMIT_BYTES: String(4 * MIB),
  SKILL_OUTPUT_FILE_LIMIT: '64',
};

const bash = (id: string, command: string) => ({
  kind: 'reply' as const,
  blocks: [{ type: 'tool_use' as const, id, name: 'bash', input: { command } }],
  usage: { input: 1, output: 1 },
});
const done = { kind: 'reply' as const, blocks: [{ type: 'text' as const, text: 'Done.' }], usage: { input: 1, output: 1 } };

type Fixtures = { anthropic: FakeAnthropic; ownServer: (env: Env) => Promise<Client> };

/** Runs computer-hostile on a small server, the model sending `commands` to bash in turn; what it was told, and how the run ended. */
async function runCommands({ anthropic, ownServer }: Fixtures, ...commands: string[]) {
  return runCommandsOn({ anthropic, ownServer }, {}, ...commands);
}

async function runCommandsOn({ anthropic, ownServer }: Fixtures, env: Env, ...commands: string[]) {
  const api = await ownServer({ ...LIMITS, ...env });
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
          ? (message.content as { type: string; content?: unknown }[])
              .filter((block) => block.type === 'tool_result')
              .map((block) => String(block.content))
          : [],
      ),
    );
  return {
    stopReason: stopReasonOf(events),
    info: String(events.findLast((event) => event.type === 'agent.info')?.payload.message),
    // The last request holds every result so far, in order.
    told: results.slice(-commands.length),
  };
}

/**
 * The computer's writable space is one budget the kernel holds (a tmpfs of the run's own):
 * a write past it fails that call, the model can free space and go on, and files deleted
 * while held open count. Each of these got through before (issue 27's attack run).
 */
describe.runIf(BUBBLEWRAP_HERE && KERNEL_LIMITS_HERE && BOUNDED_SPACE_HERE)('the computer held to its space', () => {
  it('fails a write that fills /workspace, and the run goes on once the model frees space', async ({ anthropic, ownServer }) => {
    const fixtures = { anthropic, ownServer };
    const ending = await runCommands(
      fixtures,
      'head -c 64M /dev/zero > /workspace/big',
      'rm /workspace/big && echo freed > /workspace/after.txt && cat /workspace/after.txt',
    );
    expect(ending.told[0]).toMatch(/No space left on device/);
    expect(ending.told[1]).toBe('freed\nexit code 0');
    expect(ending.stopReason).toBe('end_turn');
  });

  it('counts /dev/shm and /tmp in the same budget', async ({ anthropic, ownServer }) => {
    const fixtures = { anthropic, ownServer };
    const ending = await runCommands(
      fixtures,
      'head -c 10M /dev/zero > /dev/shm/a && head -c 10M /dev/zero > /tmp/b',
      'df -k /dev/shm /tmp /workspace | tail -n +2 | wc -l; touch /dev/planted',
    );
    expect(ending.told[0]).toMatch(/No space left on device/);
    expect(ending.told[1]).toMatch(/^3\n.*touch: cannot touch '\/dev\/planted'/s);
  });

  it('counts files deleted while held open, in /workspace and in the outputs', async ({ anthropic, ownServer }) => {
    const fixtures = { anthropic, ownServer };
    const ending = await runCommands(
      fixtures,
      'python3 /mnt/skills/computer-hostile/scripts/hide.py /workspace/hidden 64',
      'python3 /mnt/skills/computer-hostile/scripts/hide.py /mnt/session/outputs/hidden 64',
    );
    expect(ending.told[0]).toMatch(/stopped after 1[0-6] MiB: No space left on device/);
    // The outputs' bound is the output limit plus a page per allowed file; the run then ends naming the limit.
    expect(ending.told[1] ?? ending.info).toMatch(/stopped after [4-5] MiB: No space left on device|output folder/);
    expect(ending.stopReason === 'end_turn' || /output folder/.test(ending.info)).toBe(true);
  });

  it('counts socket buffers as the computer memory: the hoarder is stopped, the shell and the run go on', async ({
    anthropic,
    ownServer,
  }) => {
    const fixtures = { anthropic, ownServer };
    const rssBefore = process.memoryUsage().rss;
    const ending = await runCommands(
      fixtures,
      'export MARK=shell-kept; python3 /mnt/skills/computer-hostile/scripts/hoard.py',
      'echo "$MARK"',
    );
    expect(ending.told[0]).toMatch(/^The command was stopped: a process of it passed the computer's memory limit of 128 MiB/);
    expect(ending.told[0]).not.toMatch(/holding 400 pairs/);
    // Its memory is in no process's count, yet the supervisor and the shell are not what the kernel stops.
    expect(ending.told[1]).toBe('shell-kept\nexit code 0');
    expect(ending.stopReason).toBe('end_turn');
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * MIB);
  });

  it('leaves nothing behind on the host: no run space mounted, no run folder', async ({ anthropic, ownServer }) => {
    // A data folder of the test's own, so that what other tests' servers hold is not counted.
    const dataDir = await mkdtemp(path.join(tmpdir(), 'computer-leftovers-'));
    try {
      await runCommandsOn({ anthropic, ownServer }, { DATA_DIR: dataDir }, 'echo hi > /workspace/x');
      // Cleared just after the run's end is stored, not before it.
      await expect
        .poll(async () => runMountsUnder(await readFile('/proc/self/mountinfo', 'utf8'), dataDir), { timeout: 5000 })
        .toEqual([]);
      await expect.poll(() => readdir(path.join(dataDir, 'scratch')).catch(() => []), { timeout: 5000 }).toEqual([]);
    } finally {
      await removeDataFolder(dataDir);
    }
  });
});
