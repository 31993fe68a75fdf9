import { describe, expect } from 'vitest';
import { withCliServer } from '../../helpers/cli.js';

const it = withCliServer();

// Compiling the project takes longer than a test may: naming `build` here sets it up ahead.
// biome-ignore lint/correctness/noUnusedFunctionParameters: Vitest sets up the fixtures a hook names.
it.beforeAll(({ build }) => {}, 120_000);

describe('skillet subscribe', () => {
  it('prints the checkout of a Based subscription; paying it makes the account Based', async ({ cli, signIn }) => {
    await signIn();
    const started = cli(['subscribe', '--json']);
    expect(await started.exited, started.stderr()).toBe(0);
    const { checkoutUrl } = JSON.parse(started.stdout()) as { checkoutUrl: string };
    expect(checkoutUrl).toMatch(/\/billing\/checkout\/cs_local_/);
    const paid = await fetch(`${checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);

    const tier = cli(['api', 'GET', 'billing/subscription/tier']);
    expect(await tier.exited).toBe(0);
    expect(JSON.parse(tier.stdout())).toMatchObject({ tier: 'basedmode' });
  });
});
