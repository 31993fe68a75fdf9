import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { session, signUp, startActivation } from '../helpers/factories.js';
import { type Client, client } from '../helpers/http.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer({ LOG_LEVEL: 'trace' });
  api = client(server.url);
});
afterAll(() => server.close());

describe('logs', () => {
  it('hold no password, token, key or device code through a whole activation', async () => {
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
    expect(server.logs.length).toBeGreaterThan(20);
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
});
