import { describe, expect } from 'vitest';
import { withCliServer } from '../../helpers/cli.js';

const it = withCliServer();

// Compiling the project takes longer than a test may: naming `build` here sets it up ahead.
// biome-ignore lint/correctness/noUnusedFunctionParameters: Vitest sets up the fixtures a hook names.
it.beforeAll(({ build }) => {}, 120_000);

interface Listed {
  items: { executionId: string; status: string; inputText: string }[];
}

describe('skillet run while another run goes in the workspace', () => {
  it('names the run in the way and the ways on, exits 6, and creates nothing', async ({ cli, signIn }) => {
    await signIn();
    const detached = cli(['run', 'ticker', '60 300', '--detach']);
    expect(await detached.exited, detached.stderr()).toBe(0);
    const first = detached.stdout().trim();

    const refused = cli(['run', 'ticker', '2 10']);
    expect(await refused.exited).toBe(6);
    const told = refused.stderr();
    expect(told).toContain(`A ticker run is going in this workspace (${first})`);
    expect(told).toContain('nothing was started');
    expect(told).toContain('--wait');
    expect(told).toContain(`skillet status ${first} --watch`);
    expect(told).toContain(`skillet cancel ${first}`);
    expect(told).not.toMatch(/\b(POST|GET)\b|\/api\/|429|EXECUTION_RUNNING/);

    const listed = cli(['executions', '--json']);
    expect(await listed.exited).toBe(0);
    expect((JSON.parse(listed.stdout()) as Listed).items.map((item) => item.executionId)).toEqual([first]);
    expect(await cli(['cancel', first]).exited).toBe(0);
  }, 30_000);

  it('--wait says what it waits for, starts once the run in the way ends, and follows its own run', async ({ cli, signIn }) => {
    await signIn();
    // The run in the way is long and ended by the test once the wait is told: a short one could
    // finish before a slow machine has started the second CLI, and then there is nothing to wait for.
    const detached = cli(['run', 'ticker', '60 300', '--detach']);
    expect(await detached.exited, detached.stderr()).toBe(0);
    const first = detached.stdout().trim();

    const waiting = cli(['run', 'ticker', '3 10', '--wait', '--json']);
    await waiting.waitFor(`Waiting for the ticker run ${first} to finish`, 15_000);
    const listedMeanwhile = cli(['executions', '--json']);
    expect(await listedMeanwhile.exited).toBe(0);
    const newestMeanwhile = (JSON.parse(listedMeanwhile.stdout()) as Listed).items[0];
    expect([newestMeanwhile?.executionId, newestMeanwhile?.status]).toEqual([first, 'working']);

    expect(await cli(['cancel', first]).exited).toBe(0);
    expect(await waiting.exited, waiting.stderr()).toBe(0);
    const types = waiting
      .stdout()
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types.filter((type) => type === 'agent.message')).toHaveLength(3);

    const listed = cli(['executions', '--json']);
    expect(await listed.exited).toBe(0);
    const newest = (JSON.parse(listed.stdout()) as Listed).items.slice(0, 2);
    expect(newest.map((item) => [item.inputText, item.status])).toEqual([
      ['3 10', 'completed'],
      ['60 300', 'idle'],
    ]);
  }, 30_000);
});

describe('skillet run with input the skill does not take', () => {
  it("prints the skill author's words and starts nothing; an empty argument is bad usage", async ({ cli, signIn }) => {
    await signIn();
    const before = cli(['executions', '--json']);
    expect(await before.exited).toBe(0);
    const count = (JSON.parse(before.stdout()) as Listed).items.length;

    const refused = cli(['run', 'ticker', 'hello world']);
    expect(await refused.exited).toBe(1);
    expect(refused.stderr()).toContain('Ticker cannot run on this input. Give two whole numbers');
    expect(refused.stderr()).not.toMatch(/\b(POST|GET)\b|\/api\/|INVALID_INPUT|body\//);

    const empty = cli(['run', 'ticker', '  ']);
    expect(await empty.exited).toBe(2);
    expect(empty.stderr()).toContain('The input given is empty');

    const after = cli(['executions', '--json']);
    expect(await after.exited).toBe(0);
    expect((JSON.parse(after.stdout()) as Listed).items).toHaveLength(count);
  }, 30_000);

  it('skills show lists the examples', async ({ cli, signIn }) => {
    await signIn();
    const shown = cli(['skills', 'show', 'ticker']);
    expect(await shown.exited).toBe(0);
    expect(shown.stdout()).toContain('Examples: "10 500", "5 200", "100 50"');
  });
});
