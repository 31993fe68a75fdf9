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
