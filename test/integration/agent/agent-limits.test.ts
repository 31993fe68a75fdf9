import { describe, expect } from 'vitest';
import type { Env } from '../../../src/config.js';
import type { FakeAnthropic } from '../../fakes/anthropic.js';
import { runAgent, stopReasonOf, withAgentServer } from '../../helpers/agent.js';
import { signUp } from '../../helpers/factories.js';
import type { Client } from '../../helpers/http.js';
import { BUBBLEWRAP_HERE, KERNEL_LIMITS_HERE } from '../../helpers/sandbox.js';

const it = withAgentServer();

/** The model's plan: run each script in turn, then a closing answer the run should never reach. */
function scriptCalls(...calls: { path: string; args?: string[] }[]) {
  return [
    ...calls.map((input, index) => ({
      kind: 'reply' as const,
      blocks: [{ type: 'tool_use' as const, id: `t${index}`, name: 'run_script', input }],
      usage: { input: 1, output: 1 },
    })),
    { kind: 'reply' as const, blocks: [{ type: 'text' as const, text: 'All done.' }], usage: { input: 1, output: 1 } },
  ];
}

const LIMITS = { SKILL_PROCESS_LIMIT: '16', SKILL_CPU_SECONDS: '1', SKILL_MEMORY_MB: '64' };

type Fixtures = { anthropic: FakeAnthropic; ownServer: (env: Env) => Promise<Client> };

/** Runs agent-hostile on a server with small limits, the model calling `calls` in turn; its ending. */
async function runScripts({ anthropic, ownServer }: Fixtures, ...calls: { path: string; args?: string[] }[]) {
  const api = await ownServer(LIMITS);
  const person = await signUp(api);
  anthropic.forgetPlans();
  anthropic.plan(...scriptCalls(...calls));
  const events = await runAgent(api, person, 'agent-hostile', 'Run the scripts.');
  return {
    stopReason: stopReasonOf(events),
    info: String(events.findLast((event) => event.type === 'agent.info')?.payload.message),
    events,
  };
}

/**
 * An agent run's scripts share one control group: the kernel holds the run as a whole to its
 * memory, processes and CPU, and the first limit it enforces ends the run with an
 * agent.info that names it. Each of these got through before run groups (issue 27).
 */
describe.runIf(BUBBLEWRAP_HERE && KERNEL_LIMITS_HERE)('an agent run held to its limits by the kernel', () => {
  it('ends a run whose script forks past the process limit, naming the limit', async ({ anthropic, ownServer }) => {
    const ending = await runScripts({ anthropic, ownServer }, { path: 'scripts/forks.sh' });
    expect(ending).toMatchObject({ stopReason: 'error', info: expect.stringMatching(/more processes than its limit of 16/) });
  });

  it('counts CPU across every script of a run: three calls of 0.5 s go over a 1 s budget', async ({ anthropic, ownServer }) => {
    const burn = { path: 'scripts/burn.py', args: ['0.5'] };
    const ending = await runScripts({ anthropic, ownServer }, burn, burn, burn);
    expect(ending).toMatchObject({ stopReason: 'error', info: expect.stringMatching(/CPU time limit of 1 seconds/) });
  });

  it('counts socket buffers as the run memory', async ({ anthropic, ownServer }) => {
    const ending = await runScripts({ anthropic, ownServer }, { path: 'scripts/hoard.py' });
    expect(ending).toMatchObject({ stopReason: 'error', info: expect.stringMatching(/memory limit of 64 MiB/) });
    expect(JSON.stringify(ending.events)).not.toContain('holding 400 pairs');
  });
});

/**
 * The output watcher's cost must not grow with what a run writes: Node 20's recursive watch
 * re-read the whole folder on every change, and 3,000 files blocked the server for 14 s.
 */
describe.runIf(BUBBLEWRAP_HERE)('a run that writes many small files', () => {
  // Storing 20,000 files as the run's artifact takes most of the time: 26 s alone, 45 s beside other tests.
  it('leaves the server answering: 20,000 files while /healthz is asked every 100 ms', { timeout: 180_000 }, async ({
    anthropic,
    ownServer,
  }) => {
    const api = await ownServer({ SKILL_OUTPUT_FILE_LIMIT: '30000', SKILL_OUTPUT_LIMIT_BYTES: String(64 * 1024 * 1024) });
    const person = await signUp(api);
    anthropic.forgetPlans();
    anthropic.plan(...scriptCalls({ path: 'scripts/many-files.py' }));
    const answers: { status: number; ms: number }[] = [];
    let running = true;
    const polling = (async () => {
      while (running) {
        const started = performance.now();
        const { status } = await api.get('/healthz');
        answers.push({ status, ms: performance.now() - started });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const events = await runAgent(api, person, 'agent-hostile', 'Write the files.');
    running = false;
    await polling;
    expect(stopReasonOf(events), JSON.stringify(events.slice(-2))).toBe('end_turn');
    expect(answers.length).toBeGreaterThan(5);
    // Alone, no answer here took 50 ms; beside the rest of the suite on two cores one now and
    // then passes 100 ms. The recursive watch held answers for 5 s. The 100 ms target is the
    // benchmark's to hold; this bound tells a blocked event loop from a busy machine.
    expect(answers.filter((answer) => answer.status !== 200 || answer.ms >= 1000)).toEqual([]);
  });
});
