import { describe, expect } from 'vitest';
import { withCliServer } from '../../helpers/cli.js';

const it = withCliServer();

// Compiling the project takes longer than a test may: naming `build` here sets it up ahead.
// biome-ignore lint/correctness/noUnusedFunctionParameters: Vitest sets up the fixtures a hook names.
it.beforeAll(({ build }) => {}, 120_000);

describe('skillet subscribe and skillet subscription', () => {
  it('prints the checkout of a Based subscription; paying it makes the account Based; cancelling stops the renewal', async ({
    cli,
    signIn,
  }) => {
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

    const shown = cli(['subscription']);
    expect(await shown.exited, shown.stderr()).toBe(0);
    expect(shown.stdout()).toMatch(
      /^You are on Based, paid until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC; it renews every month\. Stop it with `skillet subscription cancel`\.\n$/,
    );

    const cancelled = cli(['subscription', 'cancel']);
    expect(await cancelled.exited, cancelled.stderr()).toBe(0);
    expect(cancelled.stdout()).toMatch(
      /^Cancelled: your subscription will not renew\. You keep Based and its credits until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\.\n$/,
    );
    const after = cli(['subscription', '--json']);
    expect(await after.exited).toBe(0);
    expect(JSON.parse(after.stdout())).toMatchObject({ subscribed: true, renews: false });

    const again = cli(['subscription', 'cancel']);
    expect(await again.exited).toBe(1);
    expect(again.stderr()).toBe('You have no subscription that renews, so there is nothing to cancel.\n');
  });
});
