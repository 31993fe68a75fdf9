import { describe, expect } from 'vitest';
import { checkoutBody } from '../../helpers/billing.js';
import { session, signUp, startActivation } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';

// Every answer gets an access line here (the default logs only refusals): what is logged is what is checked.
const it = withServer({ LOG_LEVEL: 'trace', ACCESS_LOG: 'all' });

describe('logs', () => {
  it('hold no password, token, key or device code through a whole activation', async ({ server, api }) => {
    const person = await signUp(api);
    const created = await startActivation(server, api, { 'x-client-label': 'log-test' });
    await api.post('/api/v1/activate/poll', { body: { device_code: created.device_code } });
    await api.get(`/api/v1/activate/lookup?code=${created.user_code}`, { headers: session(person) });
    await api.post('/api/v1/activate/confirm', { body: { code: created.user_code }, headers: session(person) });
    server.clock.advance(2000);
    const claimed = await api.post<{ api_key: string }>('/api/v1/activate/poll', { body: { device_code: created.device_code } });
    const apiKey = claimed.body.api_key;
    expect(apiKey).toMatch(/^sklt_live_/);
    await api.get('/api/v1/me', { headers: { 'x-api-key': apiKey } });
    const login = await api.post<{ token: string }>('/api/v1/auth/login', {
      body: { email: person.email, password: person.password },
    });
    const manual = await api.post<{ key: string }>('/api/v1/keys', { body: { label: 'manual' }, headers: session(person) });
    await api.get('/api/v1/keys', { headers: session(person) });
    // Failures are logged too: a bad key and a broken body must not leak either.
    await api.get('/api/v1/me', { headers: { 'x-api-key': `${apiKey}x` } });
    await api.post('/api/v1/auth/login', { raw: `{"password":"${person.password}"` });

    const logs = server.logs.join('\n');
    // A line per request at least: the activation above made a dozen.
    expect(server.logs.length).toBeGreaterThan(10);
    for (const secret of [
      person.password,
      person.token,
      login.body.token,
      created.device_code,
      apiKey,
      manual.body.key,
      created.user_code,
    ]) {
      expect(logs).not.toContain(secret);
    }
    expect(logs).toContain('/api/v1/activate/lookup');
  });

  it('hold no checkout session id: in test mode it is all it takes to pay or cancel that checkout', async ({ server, api }) => {
    const person = await signUp(api);
    const start = () =>
      api.post<{ checkoutUrl: string }>('/api/v1/billing/purchase', {
        body: checkoutBody({ packId: 'pack_100' }),
        headers: session(person),
      });
    const [paid, cancelled] = [(await start()).body.checkoutUrl, (await start()).body.checkoutUrl];
    expect((await fetch(paid)).status).toBe(200);
    expect((await fetch(`${paid}?from=mail`)).status).toBe(200);
    expect((await fetch(`${paid}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect((await fetch(`${cancelled}/cancel`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect((await fetch(`${cancelled}/elsewhere`)).status).toBe(404);

    const logs = server.logs.join('\n');
    for (const url of [paid, cancelled]) {
      const sessionId = url.split('/').pop() as string;
      expect(sessionId).toMatch(/^cs_local_/);
      expect(logs).not.toContain(sessionId);
    }
    expect(logs).toContain('"path":"/billing/checkout/:sessionId/pay"');
  });
});
