import { describe, expect } from 'vitest';
import { sweepExpiredActivations } from '../../../src/activation/lifecycle.js';
import { createAppContext } from '../../../src/compose.js';
import { MemoryRateLimitStore } from '../../../src/identity/rate-limit-store.js';
import type { Activation } from '../../../src/sdk/types.js';
import { createTeam, session, signUp, startActivation, type TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';

// Polls and lookups here are spread out in time by the tests themselves, not by the limiter.
const it = withServer({ RATE_LIMIT_POLL_BURST: '1000', RATE_LIMIT_REST_PER_MINUTE: '10000' })
  .extend('person', { scope: 'file' }, ({ api }) => signUp(api))
  // The activation calls, as the file's person unless another user is given.
  .extend(
    'poll',
    { scope: 'file' },
    ({ api }) =>
      (deviceCode: string) =>
        api.post<Record<string, unknown>>('/api/v1/activate/poll', { body: { device_code: deviceCode } }),
  )
  .extend(
    'confirm',
    { scope: 'file' },
    ({ api, person }) =>
      (code: string, user: TestUser = person, headers: Record<string, string> = {}) =>
        api.post('/api/v1/activate/confirm', { body: { code }, headers: session(user, headers) }),
  )
  .extend(
    'deny',
    { scope: 'file' },
    ({ api, person }) =>
      (code: string, user: TestUser = person) =>
        api.post('/api/v1/activate/deny', { body: { code }, headers: session(user) }),
  )
  .extend(
    'lookup',
    { scope: 'file' },
    ({ api, person }) =>
      (code: string, user: TestUser = person) =>
        api.get<Record<string, unknown>>(`/api/v1/activate/lookup?code=${encodeURIComponent(code)}`, { headers: session(user) }),
  );

describe('POST /api/v1/activate', () => {
  it('hands out a device code, a user code and where to enter it', async ({ server, api }) => {
    const created = await startActivation(server, api, { 'user-agent': 'skillet-cli/1.4.0 (linux; x64)' });
    expect(created).toEqual({
      device_code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      user_code: expect.stringMatching(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/),
      verification_url: `${server.config.publicUrl}/app/activate`,
      verification_url_complete: `${server.config.publicUrl}/app/activate?code=${created.user_code}`,
      app_download_url: expect.any(String),
      expires_in: 600,
      interval: 2,
    });
  });

  it('takes the client label from the header, else the body, else the User-Agent product', async ({ server, api, lookup }) => {
    const byHeader = await startActivation(server, api, { 'x-client-label': 'My Editor', 'user-agent': 'x/1' });
    server.clock.advance(1000);
    const byBody = await api.post<Activation>('/api/v1/activate', { body: { client_label: 'ci-runner' } });
    const byAgent = await startActivation(server, api, { 'user-agent': 'skillet-cli/1.4.0 (linux)' });
    expect((await lookup(byHeader.user_code)).body.client_label).toBe('My Editor');
    expect((await lookup(byBody.body.user_code)).body.client_label).toBe('ci-runner');
    expect((await lookup(byAgent.user_code)).body).toMatchObject({
      client_label: 'skillet-cli',
      client_ua: 'skillet-cli/1.4.0 (linux)',
      client_ip: '127.0.0.1',
    });
  });
});

describe('the activation state table', () => {
  it('(none) -> pending: a new code polls as pending and looks up as pending', async ({ server, api, poll, lookup }) => {
    const created = await startActivation(server, api);
    expect((await poll(created.device_code)).body).toEqual({ status: 'pending' });
    expect((await lookup(created.user_code)).body).toEqual({
      user_code: created.user_code,
      client_label: expect.any(String),
      client_ua: expect.any(String),
      client_ip: '127.0.0.1',
      status: 'pending',
      expires_at: new Date(server.clock.nowMs() + 600_000).toISOString(),
    });
  });

  it('pending -> approved -> consumed: the first poll gets the key, bound to the personal workspace', async ({
    server,
    api,
    person,
    poll,
    confirm,
    lookup,
  }) => {
    const created = await startActivation(server, api, { 'x-client-label': 'laptop' });
    expect((await confirm(created.user_code)).body).toEqual({ success: true });
    expect((await lookup(created.user_code)).body.status).toBe('approved');

    const claimed = await poll(created.device_code);
    expect(claimed.status).toBe(200);
    expect(claimed.body).toEqual({
      status: 'approved',
      api_key: expect.stringMatching(/^sklt_live_[0-9A-Za-z]{40}$/),
      tier: 'paygmode',
      workspace: { id: person.user.personalWorkspaceId, name: null },
    });
    expect((await poll(created.device_code)).body).toEqual({ status: 'consumed' });
    expect((await lookup(created.user_code)).body.status).toBe('consumed');

    const me = await api.get<{ workspace: { id: string }; credential: { type: string } }>('/api/v1/me', {
      headers: { 'x-api-key': String(claimed.body.api_key) },
    });
    expect(me.body.workspace.id).toBe(person.user.personalWorkspaceId);
    expect(me.body.credential.type).toBe('api_key');

    const keys = await api.get<{ keys: { label: string }[] }>('/api/v1/keys', { headers: session(person) });
    expect(keys.body.keys.map((key) => key.label)).toContain(`laptop (${created.user_code})`);
  });

  it('binds the key to the x-workspace-id workspace when the approver names one', async ({
    server,
    api,
    person,
    poll,
    confirm,
  }) => {
    const team = await createTeam(api, person, 'Platform');
    const created = await startActivation(server, api);
    expect((await confirm(created.user_code, person, { 'x-workspace-id': team.id })).status).toBe(200);
    expect((await poll(created.device_code)).body).toMatchObject({ workspace: { id: team.id, name: 'Platform' } });
  });

  it('pending -> denied: poll reports denied from then on', async ({ server, api, poll, deny, lookup }) => {
    const created = await startActivation(server, api);
    expect((await deny(created.user_code)).body).toEqual({ success: true });
    expect((await poll(created.device_code)).body).toEqual({ status: 'denied' });
    expect((await lookup(created.user_code)).body.status).toBe('denied');
  });

  it('pending -> expired after 600 seconds without an answer', async ({ server, api, poll, lookup }) => {
    const created = await startActivation(server, api);
    server.clock.advance(599_000);
    expect((await poll(created.device_code)).body).toEqual({ status: 'pending' });
    server.clock.advance(1_000);
    expect((await poll(created.device_code)).body).toEqual({ status: 'expired' });
    expect((await lookup(created.user_code)).body.status).toBe('expired');
  });

  it('approved -> expired when the claim window closes; approval does not extend the clock', async ({
    server,
    api,
    person,
    poll,
    confirm,
  }) => {
    const created = await startActivation(server, api);
    server.clock.advance(590_000);
    expect((await confirm(created.user_code)).status).toBe(200);
    server.clock.advance(10_000);
    expect((await poll(created.device_code)).body).toEqual({ status: 'expired' });
    // The unclaimed key died with the code.
    const keys = await api.get<{ keys: { label: string }[] }>('/api/v1/keys', { headers: session(person) });
    expect(keys.body.keys.some((key) => key.label.includes(created.user_code))).toBe(false);
  });

  it('consumed stays consumed: the key is never handed out twice', async ({ server, api, poll, confirm }) => {
    const created = await startActivation(server, api);
    await confirm(created.user_code);
    expect((await poll(created.device_code)).body.status).toBe('approved');
    for (let i = 0; i < 3; i++) expect((await poll(created.device_code)).body).toEqual({ status: 'consumed' });
  });

  it('a poll with the user code instead of the device code, or an unknown code, reads as expired', async ({
    server,
    api,
    poll,
  }) => {
    const created = await startActivation(server, api);
    expect((await poll(created.user_code)).body).toEqual({ status: 'expired' });
    expect((await poll('no-such-device-code')).body).toEqual({ status: 'expired' });
  });
});

describe('codes as people type them', () => {
  it.for([
    (code: string) => code.toLowerCase(),
    (code: string) => code.replace('-', ''),
    (code: string) => `  ${code.toLowerCase().replace('-', '')}  `,
  ])('accepts variant %#', async (variant, { server, api, confirm, lookup }) => {
    const created = await startActivation(server, api);
    expect((await lookup(variant(created.user_code))).body.user_code).toBe(created.user_code);
    expect((await confirm(variant(created.user_code))).status).toBe(200);
  });
});

describe('the errors of confirm, deny and lookup', () => {
  it('400 INVALID_INPUT when the code field is missing or not a string', async ({ api, person }) => {
    for (const body of [{}, { code: 12345678 }, { code: null }]) {
      const reply = await api.post('/api/v1/activate/confirm', { body, headers: session(person) });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ error: { code: 'INVALID_INPUT', message: expect.any(String) } });
    }
    expect((await api.post('/api/v1/activate/deny', { body: {}, headers: session(person) })).status).toBe(400);
    expect((await api.get('/api/v1/activate/lookup', { headers: session(person) })).status).toBe(400);
  });

  it('401 UNAUTHORIZED without credentials, with the exact messages', async ({ api }) => {
    const missing = await api.post('/api/v1/activate/confirm', { body: { code: 'AAAA-BBBB' } });
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Missing auth token' } });
    const invalid = await api.post('/api/v1/activate/deny', { body: { code: 'AAAA-BBBB' }, headers: { 'x-auth-token': 'nope' } });
    expect(invalid.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Invalid auth token' } });
  });

  it('403 FORBIDDEN for an API key, and for a workspace the approver is not a member of', async ({
    server,
    api,
    person,
    confirm,
    lookup,
  }) => {
    const created = await startActivation(server, api);
    const key = await api.post<{ key: string }>('/api/v1/keys', { body: { label: 'agent' }, headers: session(person) });
    const byKey = await api.post('/api/v1/activate/confirm', {
      body: { code: created.user_code },
      headers: { 'x-api-key': key.body.key },
    });
    expect(byKey.status).toBe(403);

    const stranger = await signUp(api);
    const theirs = await createTeam(api, stranger, 'Not yours');
    const reply = await confirm(created.user_code, person, { 'x-workspace-id': theirs.id });
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ error: { code: 'FORBIDDEN', message: expect.any(String) } });
    expect((await lookup(created.user_code)).body.status).toBe('pending');
  });

  it('404 NOT_FOUND for a code that does not exist', async ({ confirm, deny, lookup }) => {
    for (const reply of [
      await confirm('ZZZZ-ZZZZ'),
      await deny('ZZZZ-ZZZZ'),
      await lookup('ZZZZ-ZZZZ'),
      await confirm('not a code'),
    ]) {
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    }
  });

  it('409 CONFLICT naming the current state when the code is no longer pending', async ({ server, api, poll, confirm, deny }) => {
    const approved = await startActivation(server, api);
    await confirm(approved.user_code);
    const again = await confirm(approved.user_code);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: { code: 'CONFLICT', message: expect.stringContaining('approved') } });
    expect((await deny(approved.user_code)).body).toEqual({
      error: { code: 'CONFLICT', message: expect.stringContaining('approved') },
    });

    const denied = await startActivation(server, api);
    await deny(denied.user_code);
    expect((await confirm(denied.user_code)).body).toEqual({
      error: { code: 'CONFLICT', message: expect.stringContaining('denied') },
    });

    await poll(approved.device_code);
    expect((await confirm(approved.user_code)).body).toEqual({
      error: { code: 'CONFLICT', message: expect.stringContaining('consumed') },
    });
  });

  it('410 EXPIRED once the ten minutes have passed', async ({ server, api, confirm, deny }) => {
    const created = await startActivation(server, api);
    server.clock.advance(600_000);
    for (const reply of [await confirm(created.user_code), await deny(created.user_code)]) {
      expect(reply.status).toBe(410);
      expect(reply.body).toEqual({ error: { code: 'EXPIRED', message: expect.any(String) } });
    }
  });

  it('403 FORBIDDEN when approving would pass the key limit of the mode (paygmode: 10)', async ({
    server,
    api,
    confirm,
    lookup,
  }) => {
    const busy = await signUp(api);
    for (let i = 0; i < 10; i++) {
      const created = await startActivation(server, api);
      expect((await confirm(created.user_code, busy)).status).toBe(200);
    }
    const eleventh = await startActivation(server, api);
    const reply = await confirm(eleventh.user_code, busy);
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({
      error: { code: 'FORBIDDEN', message: expect.stringContaining('the 10 keys Pay as you go allows') },
    });
    expect((await lookup(eleventh.user_code, busy)).body.status).toBe('pending');
  });
});

describe('poll input', () => {
  it('answers 400 INVALID_INPUT for a missing or non-string device_code', async ({ api }) => {
    for (const body of [{}, { device_code: 7 }, []]) {
      const reply = await api.post('/api/v1/activate/poll', { body });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ error: { code: 'INVALID_INPUT', message: expect.any(String) } });
    }
  });
});

describe('the expiry sweep', () => {
  it('expires codes nobody reads any more, revoking a key that was approved but never claimed', async ({
    server,
    api,
    poll,
    confirm,
  }) => {
    const sweeper = createAppContext({
      config: server.config,
      database: server.db,
      clock: server.clock,
      rateLimits: new MemoryRateLimitStore(),
    });
    const approver = await signUp(api);
    const approved = await startActivation(server, api);
    const waiting = await startActivation(server, api);
    await confirm(approved.user_code, approver);
    const keysBefore = await api.get<{ keys: unknown[] }>('/api/v1/keys', { headers: session(approver) });
    expect(keysBefore.body.keys).toHaveLength(1);

    const statuses = async () =>
      (
        await server.db.db
          .selectFrom('activations')
          .select(['status', 'sealed_key'])
          .where('user_code', 'in', [approved.user_code, waiting.user_code])
          .orderBy('status')
          .execute()
      ).map((row) => [row.status, row.sealed_key === null]);

    // `approved` was created one limiter interval before `waiting`.
    server.clock.advance(598_000);
    await sweepExpiredActivations(sweeper);
    expect(await statuses()).toEqual([
      ['approved', false],
      ['pending', true],
    ]);
    server.clock.advance(2_000);
    expect(await sweepExpiredActivations(sweeper)).toBeGreaterThanOrEqual(2);
    expect(await statuses()).toEqual([
      ['expired', true],
      ['expired', true],
    ]);
    const keysAfter = await api.get<{ keys: unknown[] }>('/api/v1/keys', { headers: session(approver) });
    expect(keysAfter.body.keys).toEqual([]);
    expect((await poll(approved.device_code)).body).toEqual({ status: 'expired' });
  });
});
