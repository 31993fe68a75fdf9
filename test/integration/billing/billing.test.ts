import { describe, expect } from 'vitest';
import type { Balance } from '../../../src/sdk/types.js';
import { runForArtifact } from '../../helpers/artifacts.js';
import { balanceOf, buyWithLocalCheckout, checkoutBody, grantSiteLicense, transactionsOf } from '../../helpers/billing.js';
import { createExecution, streamOf } from '../../helpers/executions.js';
import { createKey, createTeam, session, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import { client } from '../../helpers/http.js';
import { startServer } from '../../helpers/server.js';

const it = withServer({
  SIGNUP_CREDITS: '0',
  RATE_LIMIT_REST_PER_MINUTE: '100000',
  RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000',
});

const standard = (code: string) => ({ error: { code, message: expect.any(String) } });

describe('a new account', () => {
  it('has nothing, cannot run priced skills, and sees the packs, modes and test mode', async ({ api }) => {
    const person = await signUp(api);
    expect(await balanceOf(api, person)).toEqual({ balance: 0, totalSpent: 0, canExecute: false, isAdmin: false });
    expect(await transactionsOf(api, person)).toEqual([]);
    const packs = await api.get('/api/v1/billing/packs', { headers: session(person) });
    expect(packs.body).toEqual({
      packs: [
        { id: 'pack_100', name: expect.any(String), credits: 100, priceCents: 100 },
        { id: 'pack_250', name: expect.any(String), credits: 250, priceCents: 225 },
        { id: 'pack_500', name: expect.any(String), credits: 500, priceCents: 425 },
        { id: 'pack_1000', name: expect.any(String), credits: 1000, priceCents: 800 },
        { id: 'pack_5000', name: expect.any(String), credits: 5000, priceCents: 3750 },
      ],
    });
    const info = {
      name: expect.any(String),
      priceCents: 0,
      priceDisplay: expect.any(String),
      monthlyCredits: 0,
      packDiscount: 0,
    };
    const modes = await api.get<{ modes: Record<string, unknown> }>('/api/v1/billing/subscription/info', {
      headers: session(person),
    });
    expect(modes.body).toEqual({
      modes: {
        byokmode: info,
        paygmode: info,
        basedmode: { ...info, priceCents: 2900, monthlyCredits: 2000, packDiscount: 0.2 },
      },
    });
    const tier = await api.get('/api/v1/billing/subscription/tier', { headers: session(person) });
    expect(tier.body).toEqual({ tier: 'paygmode', info, subscriptionExpiresAt: null, isTestMode: true });
    expect((await api.get('/api/v1/billing/publishable-key', { headers: session(person) })).body).toEqual({
      publishableKey: 'pk_test_local',
    });

    const refused = await api.post('/api/v1/executions', {
      body: { skill_slug: 'text-stats', input: 'x' },
      headers: session(person),
    });
    expect([refused.status, refused.body]).toEqual([402, standard('INSUFFICIENT_CREDITS')]);
    // A free skill runs all the same.
    expect((await createExecution(api, person, 'ticker', '1 1')).status).toBe('idle');
  });

  it('refuses a purchase with missing fields or an unknown pack, and one without credentials', async ({ api }) => {
    const person = await signUp(api);
    for (const body of [
      {},
      checkoutBody(),
      checkoutBody({ packId: 'pack_7' }),
      { ...checkoutBody({ packId: 'pack_100' }), email: 3 },
    ]) {
      const reply = await api.post('/api/v1/billing/purchase', { body, headers: session(person) });
      expect([reply.status, reply.body], JSON.stringify(body)).toEqual([400, standard('INVALID_INPUT')]);
    }
    const anonymous = await api.post('/api/v1/billing/purchase', { body: checkoutBody({ packId: 'pack_100' }) });
    expect(anonymous.status).toBe(401);
    expect(await transactionsOf(api, person)).toEqual([]);
  });

  it('refuses return URLs other than http(s) and the app scheme, on purchase and subscribe; the app scheme works', async ({
    server,
    api,
  }) => {
    const person = await signUp(api);
    const hostile = [
      'javascript://%0Aalert(document.cookie)',
      'JavaScript://x/%0Afetch("/api/v1/keys")',
      'data://text/html,<script>alert(1)</script>',
      'data:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
      'otherapp://payment-success',
    ];
    for (const [path, extra] of [
      ['/api/v1/billing/purchase', { packId: 'pack_100' }],
      ['/api/v1/billing/subscribe', {}],
    ] as const) {
      for (const url of hostile) {
        for (const field of ['successUrl', 'cancelUrl']) {
          const reply = await api.post(path, { body: checkoutBody({ ...extra, [field]: url }), headers: session(person) });
          expect([reply.status, reply.body], `${path} ${field} ${url}`).toEqual([400, standard('INVALID_INPUT')]);
        }
      }
    }
    const stored = await server.db.db
      .selectFrom('checkout_sessions')
      .select('id')
      .where('user_id', '=', person.user.id)
      .execute();
    expect(stored).toEqual([]);

    const native = await api.post<{ checkoutUrl: string }>('/api/v1/billing/purchase', {
      body: checkoutBody({ packId: 'pack_100', successUrl: 'skillet://payment-success', cancelUrl: 'skillet://payment-cancel' }),
      headers: session(person),
    });
    expect(native.status).toBe(200);
    // The page's forms may lead to the app: browsers apply form-action to the redirect a form's answer makes.
    const page = await fetch(native.body.checkoutUrl);
    expect(page.headers.get('content-security-policy')).toMatch(/form-action 'self' http: https: skillet:;/);
    const cancelled = await fetch(`${native.body.checkoutUrl}/cancel`, { method: 'POST', redirect: 'manual' });
    expect([cancelled.status, cancelled.headers.get('location')]).toEqual([303, 'skillet://payment-cancel']);
  });
});

describe('the local test-mode checkout', () => {
  it('shows the pack and price, and Pay grants the credits through the webhook, once', async ({ api }) => {
    const person = await signUp(api);
    const started = await api.post<{ checkoutUrl: string }>('/api/v1/billing/purchase', {
      body: checkoutBody({ packId: 'pack_250' }),
      headers: session(person),
    });
    const page = await fetch(started.body.checkoutUrl);
    const text = await page.text();
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(text).toContain('250 Ds');
    expect(text).toContain('$2.25');
    expect(text).toMatch(/<form method="post" action="\/billing\/checkout\/cs_local_[\w-]+\/pay"><button class="primary">Pay/);
    expect(await balanceOf(api, person)).toMatchObject({ balance: 0 });

    for (let press = 0; press < 2; press++) {
      const paid = await fetch(`${started.body.checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
      expect([paid.status, paid.headers.get('location')]).toEqual([303, 'https://app.example.test/paid']);
    }
    expect(await balanceOf(api, person)).toEqual({ balance: 250, totalSpent: 0, canExecute: true, isAdmin: false });
    expect(await transactionsOf(api, person)).toEqual([
      {
        id: expect.any(Number),
        userId: person.user.id,
        amount: 250,
        type: 'purchase',
        description: expect.stringContaining('250'),
        executionId: null,
        paymentSessionId: started.body.checkoutUrl.split('/').pop(),
        createdAt: expect.any(String),
      },
    ]);
  });

  it('Cancel returns to cancelUrl and grants nothing; a canceled checkout cannot be paid', async ({ server, api }) => {
    const person = await signUp(api);
    const started = await api.post<{ checkoutUrl: string }>('/api/v1/billing/purchase', {
      body: checkoutBody({ packId: 'pack_100' }),
      headers: session(person),
    });
    const cancelled = await fetch(`${started.body.checkoutUrl}/cancel`, { method: 'POST', redirect: 'manual' });
    expect([cancelled.status, cancelled.headers.get('location')]).toEqual([303, 'https://app.example.test/cancelled']);
    const late = await fetch(`${started.body.checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
    expect(late.status).toBe(200);
    expect(await late.text()).toContain('This checkout is cancelled.');
    expect(await balanceOf(api, person)).toMatchObject({ balance: 0 });
    expect((await fetch(`${server.url}/billing/checkout/cs_local_nope`)).status).toBe(404);
  });
});

describe('test mode and SKILLET_ENV', () => {
  const warnings = (logs: string[]) =>
    logs.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((line) => line.level === 40);

  it('a local install warns at start that anyone can grant themselves credits, and its checkout page says it is in test mode', async ({
    server,
    api,
  }) => {
    expect(warnings(server.logs)).toContainEqual(
      expect.objectContaining({
        payments: 'local',
        msg: expect.stringMatching(/^Test-mode checkout is on .*grant themselves credits/),
      }),
    );
    const person = await signUp(api);
    const started = await api.post<{ checkoutUrl: string }>('/api/v1/billing/purchase', {
      body: checkoutBody({ packId: 'pack_100' }),
      headers: session(person),
    });
    const text = await (await fetch(started.body.checkoutUrl)).text();
    expect(text).toMatch(/<main><p class="test-mode" role="alert">Test mode: no money moves/);
  });

  it('in production without a Stripe key, purchase and subscribe answer 503 and no checkout page or webhook grants anything', async () => {
    const production = await startServer({ SIGNUP_CREDITS: '0', SKILLET_ENV: 'production' });
    try {
      const api1 = client(production.url);
      expect(warnings(production.logs)).toContainEqual(
        expect.objectContaining({ payments: 'none', msg: expect.stringMatching(/^Payments are off/) }),
      );
      expect(warnings(production.logs).some((line) => line.msg.startsWith('Test-mode checkout'))).toBe(false);
      const person = await signUp(api1);
      for (const [path, body] of [
        ['/api/v1/billing/purchase', checkoutBody({ packId: 'pack_100' })],
        ['/api/v1/billing/subscribe', checkoutBody()],
      ] as const) {
        const reply = await api1.post(path, { body, headers: session(person) });
        expect([reply.status, reply.body], path).toEqual([503, standard('SERVICE_UNAVAILABLE')]);
      }
      const tier = await api1.get('/api/v1/billing/subscription/tier', { headers: session(person) });
      expect(tier.body).toMatchObject({ isTestMode: false });
      expect((await fetch(`${production.url}/billing/checkout/cs_local_any/pay`, { method: 'POST' })).status).toBe(404);
      expect(await balanceOf(api1, person)).toMatchObject({ balance: 0 });
      // A refusal the operator chose and was told about at start, not a failure to log with a stack.
      expect(production.logs.some((line) => (JSON.parse(line) as { level: number }).level >= 50)).toBe(false);
    } finally {
      await production.close();
    }
  });
});

describe('charging runs', () => {
  it('a priced run costs its price as a usage transaction with its execution id', async ({ server, api }) => {
    const person = await signUp(api);
    await buyWithLocalCheckout(api, server.url, person);
    const run = await runForArtifact(api, person, 'text-stats', 'Count these words.');
    const result = run.events.find((event) => event.type === 'execution.result');
    expect(result?.payload).toMatchObject({ cost: 1 });
    const [usage] = await transactionsOf(api, person);
    expect(usage).toMatchObject({ amount: -1, type: 'usage', executionId: expect.any(String), paymentSessionId: null });
    expect(await balanceOf(api, person)).toEqual({ balance: 99, totalSpent: 1, canExecute: true, isAdmin: false });
  });

  it('admins run priced skills without being debited', async ({ server, api }) => {
    const admin = await signUp(api);
    await server.db.db.updateTable('users').set({ is_admin: 1 }).where('id', '=', admin.user.id).execute();
    const run = await runForArtifact(api, admin, 'text-stats', 'Free for admins.');
    expect(run.events.find((event) => event.type === 'execution.result')?.payload).toMatchObject({ cost: 0 });
    expect(await transactionsOf(api, admin)).toEqual([]);
    expect(await balanceOf(api, admin)).toEqual<Balance>({ balance: 0, totalSpent: 0, canExecute: true, isAdmin: true });
  });
});

describe('a site license', () => {
  it('puts the user in sitelicense mode: runs cost nothing, keys are unlimited, info omits the mode', async ({ server, api }) => {
    const licensed = await signUp(api);
    await grantSiteLicense(server, licensed.user.id);
    const tier = await api.get('/api/v1/billing/subscription/tier', { headers: session(licensed) });
    expect(tier.body).toMatchObject({ tier: 'sitelicense', info: { priceCents: 0 } });
    expect(await balanceOf(api, licensed)).toEqual({ balance: 0, totalSpent: 0, canExecute: true, isAdmin: false });
    const run = await runForArtifact(api, licensed, 'text-stats', 'licensed words');
    expect(run.events.find((event) => event.type === 'execution.result')?.payload).toMatchObject({ cost: 0 });
    expect(await transactionsOf(api, licensed)).toEqual([]);
    for (let i = 0; i < 11; i++) await createKey(api, licensed, `key ${i}`);
    const info = await api.get<{ modes: Record<string, unknown> }>('/api/v1/billing/subscription/info', {
      headers: session(licensed),
    });
    expect(Object.keys(info.body.modes)).toEqual(['byokmode', 'paygmode', 'basedmode']);
  });
});

describe('basedmode', () => {
  it('a paid subscription grants 2000 Ds, sets the expiry a month on, and makes packs 20% cheaper', async ({ server, api }) => {
    const person = await signUp(api);
    const started = await api.post<{ checkoutUrl: string }>('/api/v1/billing/subscribe', {
      body: checkoutBody(),
      headers: session(person),
    });
    expect(started.status).toBe(200);
    expect(await (await fetch(started.body.checkoutUrl)).text()).toContain('$29.00');
    await fetch(`${started.body.checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
    const tier = await api.get<{ tier: string; subscriptionExpiresAt: string }>('/api/v1/billing/subscription/tier', {
      headers: session(person),
    });
    expect(tier.body).toMatchObject({ tier: 'basedmode', info: { monthlyCredits: 2000, packDiscount: 0.2 } });
    const expected = server.clock.now();
    expected.setUTCMonth(expected.getUTCMonth() + 1);
    expect(tier.body.subscriptionExpiresAt).toBe(expected.toISOString());
    expect(await balanceOf(api, person)).toMatchObject({ balance: 2000 });
    const packs = await api.get<{ packs: { id: string; priceCents: number }[] }>('/api/v1/billing/packs', {
      headers: session(person),
    });
    expect(packs.body.packs.map((pack) => pack.priceCents)).toEqual([80, 180, 340, 640, 3000]);
    const me = await api.get<{ tier: string }>('/api/v1/me', { headers: session(person) });
    expect(me.body.tier).toBe('basedmode');
    for (let i = 0; i < 11; i++) await createKey(api, person, `key ${i}`);
    // Past the expiry the mode falls back by itself (asked with a key: the session token is older than its 30 days by then).
    const { key } = await createKey(api, person);
    server.clock.advance(32 * 24 * 3_600_000);
    const later = await api.get<{ tier: string }>('/api/v1/billing/subscription/tier', { headers: { 'x-api-key': key } });
    expect(later.body.tier).toBe('paygmode');
  });
});

describe('BYOK', () => {
  it('stores a key sealed, shows only a masked preview, and moves the mode and key limit', async ({ server, api }) => {
    const person = await signUp(api);
    const headers = session(person);
    expect((await api.get('/api/v1/byok', { headers })).body).toEqual({ hasKey: false, keyPreview: null, provider: null });
    const anthropicKey = `sk-ant-api03-${'A'.repeat(40)}wxyz`;
    const stored = await api.put('/api/v1/byok', { body: { key: anthropicKey }, headers });
    expect([stored.status, stored.body]).toEqual([200, { hasKey: true, keyPreview: 'sk-ant-…wxyz', provider: 'anthropic' }]);
    expect(stored.text).not.toContain('AAAA');
    const row = await server.db.db
      .selectFrom('users')
      .select('byok_sealed')
      .where('id', '=', person.user.id)
      .executeTakeFirstOrThrow();
    expect(row.byok_sealed).not.toContain('AAAA');
    expect((await api.get<{ tier: string }>('/api/v1/billing/subscription/tier', { headers })).body.tier).toBe('byokmode');
    expect((await api.get<{ tier: string }>('/api/v1/me', { headers })).body.tier).toBe('byokmode');
    expect(await balanceOf(api, person)).toMatchObject({ balance: 0, canExecute: false });
    await createKey(api, person);
    const second = await api.post('/api/v1/keys', { body: { label: 'two' }, headers });
    expect([second.status, second.body]).toEqual([403, standard('FORBIDDEN')]);

    const openai = await api.put('/api/v1/byok', { body: { key: `sk-proj-${'b'.repeat(30)}1234` }, headers });
    expect(openai.body).toEqual({ hasKey: true, keyPreview: 'sk-…1234', provider: 'openai' });
    for (const key of [undefined, '', 42, 'pk-live-123456789012345678', 'sk-short']) {
      const refused = await api.put('/api/v1/byok', { body: key === undefined ? {} : { key }, headers });
      expect([refused.status, refused.body], String(key)).toEqual([400, standard('INVALID_INPUT')]);
    }
    expect((await api.delete('/api/v1/byok', { headers })).body).toEqual({ hasKey: false, keyPreview: null });
    expect((await api.get<{ tier: string }>('/api/v1/billing/subscription/tier', { headers })).body.tier).toBe('paygmode');
    expect(server.logs.join('\n')).not.toContain(anthropicKey);
  });
});

describe('payment return pages', () => {
  it('send the browser back to the app by its deep link, with a link to tap', async ({ server }) => {
    for (const [outcome, target] of [
      ['success', 'skillet://payment-success'],
      ['cancel', 'skillet://payment-cancel'],
    ]) {
      const reply = await fetch(`${server.url}/api/v1/billing/return/${outcome}`);
      const text = await reply.text();
      expect(reply.headers.get('content-type')).toContain('text/html');
      expect(text).toContain(`<meta http-equiv="refresh" content="0;url=${target}">`);
      expect(text).toContain(`<a href="${target}">`);
    }
    expect((await fetch(`${server.url}/api/v1/billing/return/elsewhere`)).status).toBe(404);
  });
});

/** Runs text-stats in a workspace and returns every event of its stream. */
describe('one user, two workspaces, one credit', () => {
  it('two concurrent priced starts: one holds the credit and runs, the other is 402 before anything streams', async () => {
    const single = await startServer({ SIGNUP_CREDITS: '1', RATE_LIMIT_REST_PER_MINUTE: '100000' });
    try {
      const api1 = client(single.url);
      for (let round = 0; round < 5; round++) {
        const person = await signUp(api1);
        const team = await createTeam(api1, person);
        const auths = [session(person), session(person, { 'x-workspace-id': team.id })];
        const created = await Promise.all(auths.map((auth) => createExecution(api1, person, 'text-stats', 'count me', {}, auth)));
        const streams = await Promise.all(
          created.map((execution, index) => streamOf(api1, person, execution.id, '', auths[index])),
        );
        const starts = await Promise.all(
          created.map((execution, index) =>
            api1.post<{ error?: { code: string } }>(`/api/v1/executions/${execution.id}/events`, {
              body: { events: [{ type: 'user.message', content: [{ type: 'text', text: 'count me' }] }] },
              headers: auths[index],
            }),
          ),
        );
        expect(starts.map((reply) => reply.status).sort()).toEqual([200, 402]);
        const refused = starts.findIndex((reply) => reply.status === 402);
        expect(starts[refused]?.body).toEqual(standard('INSUFFICIENT_CREDITS'));
        const ran = streams[1 - refused];
        await ran?.ended;
        expect(ran?.events.at(-1)?.payload.stop_reason).toEqual({ type: 'end_turn' });
        streams[refused]?.close();
        expect(streams[refused]?.events.map((event) => event.type)).toEqual([]);
        expect(await balanceOf(api1, person)).toMatchObject({ balance: 0, totalSpent: 1 });
        const ledger = await transactionsOf(api1, person);
        expect(ledger.map((entry) => entry.amount).sort()).toEqual([-1, 1]);
      }
    } finally {
      await single.close();
    }
  });
});
