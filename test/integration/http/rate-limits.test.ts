import { describe, expect } from 'vitest';
import { createKey, session, signUp, startActivation, uniqueEmail } from '../../helpers/factories.js';
import { withServerPerTest } from '../../helpers/fixtures.js';
import { type Client, client, type Reply } from '../../helpers/http.js';
import { startServer } from '../../helpers/server.js';

const it = withServerPerTest();

function expectHeaders(reply: Reply, limit: number, remaining: number, reset: number): void {
  expect([
    reply.headers.get('x-ratelimit-limit'),
    reply.headers.get('x-ratelimit-remaining'),
    reply.headers.get('x-ratelimit-reset'),
  ]).toEqual([String(limit), String(remaining), String(reset)]);
}

function expectRateLimited(reply: Reply): void {
  expect(reply.status).toBe(429);
  expect(reply.body).toEqual({ error: { type: 'rate_limit_error', message: expect.any(String) } });
  expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

describe('rate-limit headers', () => {
  it('are on every kind of response: 200, 400, 401, 404, 413 and 429', async ({ api }) => {
    const user = await signUp(api);
    const replies = [
      await api.get('/api/v1/me', { headers: session(user) }),
      await api.post('/api/v1/activate/confirm', { raw: '{"code":', headers: session(user) }),
      await api.get('/api/v1/me'),
      await api.get('/api/v1/no-such-route'),
      await api.post('/api/v1/activate/poll', { raw: '{broken' }),
      await api.post('/api/v1/auth/login', { raw: JSON.stringify({ email: 'x'.repeat(300_000) }) }),
      await api.post('/api/v1/activate', {}),
      await api.post('/api/v1/activate', {}),
      await api.get('/activate'),
    ];
    expect(replies.map((reply) => reply.status)).toEqual([200, 400, 401, 404, 400, 413, 200, 429, 200]);
    for (const reply of replies) {
      expect(reply.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
      expect(reply.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(reply.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
    }
  });
});

describe('REST: 100 requests a minute per credential', () => {
  it('counts down, refuses the 101st with the rate-limit envelope, and resets after the window', async ({ server, api }) => {
    const user = await signUp(api);
    const key = await createKey(api, user);
    const headers = { 'x-api-key': key.key };
    expectHeaders(await api.get('/api/v1/me', { headers }), 100, 99, 60);
    for (let i = 2; i <= 100; i++) expect((await api.get('/api/v1/me', { headers })).status).toBe(200);
    server.clock.advance(15_000);
    const refused = await api.get('/api/v1/me', { headers });
    expectRateLimited(refused);
    expectHeaders(refused, 100, 0, 45);
    expect(refused.headers.get('retry-after')).toBe('45');

    // Another credential of the same person has its own count.
    expect((await api.get('/api/v1/me', { headers: session(user) })).status).toBe(200);

    server.clock.advance(45_000);
    expectHeaders(await api.get('/api/v1/me', { headers }), 100, 99, 60);
  });

  it('counts requests without a valid credential per client IP', async ({ api }) => {
    for (let i = 0; i < 100; i++) expect((await api.get('/api/v1/me', { headers: { 'x-api-key': 'bogus' } })).status).toBe(401);
    expectRateLimited(await api.get('/api/v1/me'));
  });
});

describe('POST /activate: at least a second apart per client IP', () => {
  it('refuses a second creation within the interval with Retry-After, and allows it after', async ({ server, api }) => {
    const first = await api.post('/api/v1/activate', {});
    expect(first.status).toBe(200);
    expectHeaders(first, 1, 0, 1);
    server.clock.advance(500);
    const second = await api.post('/api/v1/activate', {});
    expectRateLimited(second);
    expect(second.headers.get('retry-after')).toBe('1');
    server.clock.advance(500);
    expect((await api.post('/api/v1/activate', {})).status).toBe(200);
  });
});

describe('POST /activate/poll: a burst of 5, then about one a second per code', () => {
  it('refuses the sixth quick poll, allows one more a second later, and counts codes apart', async ({ server, api }) => {
    const created = await startActivation(server, api);
    const poll = (code: string) => api.post('/api/v1/activate/poll', { body: { device_code: code } });
    for (let i = 0; i < 5; i++) expect((await poll(created.device_code)).body).toEqual({ status: 'pending' });
    expectRateLimited(await poll(created.device_code));
    expect((await poll('another-device-code')).status).toBe(200);
    server.clock.advance(1000);
    expect((await poll(created.device_code)).status).toBe(200);
    expectRateLimited(await poll(created.device_code));
  });
});

describe('guess limiting (RFC 8628 section 5.1)', () => {
  it('after 10 unknown codes in 10 minutes, refuses lookups and confirms, even of a real code', async ({ server, api }) => {
    const guesser = await signUp(api);
    const real = await startActivation(server, api);
    for (let i = 0; i < 5; i++) {
      expect((await api.get('/api/v1/activate/lookup?code=ZZZZ-ZZZZ', { headers: session(guesser) })).status).toBe(404);
      expect(
        (await api.post('/api/v1/activate/confirm', { body: { code: 'YYYY-YYYY' }, headers: session(guesser) })).status,
      ).toBe(404);
    }
    expectRateLimited(await api.get(`/api/v1/activate/lookup?code=${real.user_code}`, { headers: session(guesser) }));
    expectRateLimited(await api.post('/api/v1/activate/confirm', { body: { code: real.user_code }, headers: session(guesser) }));

    // Somebody else is not affected; and the guesser may try again after the window.
    const other = await signUp(api);
    expect((await api.get(`/api/v1/activate/lookup?code=${real.user_code}`, { headers: session(other) })).status).toBe(200);
    server.clock.advance(10 * 60_000);
    const fresh = await startActivation(server, api);
    expect(
      (await api.post('/api/v1/activate/confirm', { body: { code: fresh.user_code }, headers: session(guesser) })).status,
    ).toBe(200);
  });
});

describe('failed sign-ins: 10 per 15 minutes per account', () => {
  const logIn = (on: Client, email: string, password: string) => on.post('/api/v1/auth/login', { body: { email, password } });

  it('refuses the account with 429 after 10 failures, even with the right password, until the window has passed', async ({
    server,
    api,
  }) => {
    const user = await signUp(api);
    const other = await signUp(api);
    for (let i = 0; i < 9; i++) expect((await logIn(api, user.email, 'wrong password')).status).toBe(401);
    // Before the limit, the right password still signs in.
    expect((await logIn(api, user.email, user.password)).status).toBe(200);
    server.clock.advance(60_000);
    // The tenth failure, with the email spelled differently: the same account.
    expect((await logIn(api, `  ${user.email.toUpperCase()} `, 'wrong password')).status).toBe(401);
    const refused = await logIn(api, user.email, user.password);
    expectRateLimited(refused);
    expect(refused.headers.get('retry-after')).toBe(String(14 * 60));
    expect((await logIn(api, other.email, other.password)).status).toBe(200);

    server.clock.advance(14 * 60_000 - 1000);
    expectRateLimited(await logIn(api, user.email, user.password));
    server.clock.advance(1000);
    expect((await logIn(api, user.email, user.password)).status).toBe(200);
  });

  it('limits an unknown email the same way, so the answers do not tell which emails have an account', async ({ api }) => {
    const user = await signUp(api);
    const answersFor = async (email: string) => {
      const answers: unknown[] = [];
      for (let i = 0; i < 11; i++) {
        const reply = await logIn(api, email, 'wrong password');
        answers.push([reply.status, reply.body, reply.headers.get('retry-after')]);
      }
      return answers;
    };
    const known = await answersFor(user.email);
    expect(known.slice(0, 10)).toEqual(
      Array(10).fill([401, { error: { code: 'UNAUTHORIZED', message: 'Invalid email or password' } }, null]),
    );
    expect(known[10]).toEqual([429, { error: { type: 'rate_limit_error', message: expect.any(String) } }, '900']);
    expect(await answersFor(uniqueEmail())).toEqual(known);
  });

  it('follows RATE_LIMIT_LOGIN_FAILURES and RATE_LIMIT_LOGIN_WINDOW_MS, and counts failures on the approval page too', async () => {
    const custom = await startServer({ RATE_LIMIT_LOGIN_FAILURES: '3', RATE_LIMIT_LOGIN_WINDOW_MS: '60000' });
    try {
      const customApi = client(custom.url);
      const user = await signUp(customApi);
      const review = async (password: string) => {
        const body = new URLSearchParams({ code: 'ABCD-EFGH', email: user.email, password });
        const headers = { 'content-type': 'application/x-www-form-urlencoded' };
        return (await fetch(`${custom.url}/activate/review`, { method: 'POST', headers, body })).status;
      };
      expect(await review('wrong password')).toBe(401);
      expect((await logIn(customApi, user.email, 'wrong password')).status).toBe(401);
      expect(await review('wrong password')).toBe(401);
      expect(await review(user.password)).toBe(429);
      const refused = await logIn(customApi, user.email, user.password);
      expectRateLimited(refused);
      expect(refused.headers.get('retry-after')).toBe('60');
      custom.clock.advance(60_000);
      expect((await logIn(customApi, user.email, user.password)).status).toBe(200);
    } finally {
      await custom.close();
    }
  });
});
