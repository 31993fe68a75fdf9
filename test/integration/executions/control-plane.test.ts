import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect as connectTcp } from 'node:net';
import { describe, expect, vi } from 'vitest';
import WebSocket from 'ws';
import { createExecution, runToEnd, sendMessage, streamOf } from '../../helpers/executions.js';
import { createKey, createTeam, session, signUp, type TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import { type Client, tamper } from '../../helpers/http.js';

const it = withServer({
  RATE_LIMIT_REST_PER_MINUTE: '100000',
  RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000',
  CONTROL_PING_MS: '50',
}).extend('owner', { scope: 'file' }, ({ api }) => signUp(api));

interface Listener {
  socket: WebSocket;
  messages: Record<string, unknown>[];
  pings: number;
}

async function subscribeUrl(api: Client, headers: Record<string, string>): Promise<string> {
  const reply = await api.get<{ url: string; expiresInMs: number }>('/api/v1/events/subscribe-url', { headers });
  expect(reply.status).toBe(200);
  expect(reply.body.expiresInMs).toBe(300000);
  return reply.body.url;
}

async function connect(url: string): Promise<Listener> {
  const socket = new WebSocket(url);
  const listener: Listener = { socket, messages: [], pings: 0 };
  socket.on('message', (data) => listener.messages.push(JSON.parse(String(data))));
  socket.on('ping', () => {
    listener.pings += 1;
  });
  await once(socket, 'open');
  return listener;
}

/** How a socket was closed ([code, reason]), or 'still open' if it is open after `ms`. */
async function closing(listener: Listener, ms = 2000): Promise<[number, string] | 'still open'> {
  const closed = once(listener.socket, 'close').then(([code, reason]) => [code as number, String(reason)] as [number, string]);
  const timer = new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), ms));
  return Promise.race([closed, timer]);
}

const REVOKED: [number, string] = [4401, 'credential revoked'];

const invalidation = expect.objectContaining({ type: 'cache-invalidate', keys: ['executions'] });

/**
 * A cache-invalidate in the person's workspace (creating an execution announces one),
 * returning once every listener in `hearers` has it: a socket that should hear nothing is
 * checked against the same moment.
 */
async function announceSomething(api: Client, person: TestUser, hearers: Listener[]) {
  const before = hearers.map((listener) => listener.messages.length);
  await createExecution(api, person, 'ticker', '1 1');
  await vi.waitFor(() => {
    hearers.forEach((listener, i) => {
      expect(listener.messages.slice(before[i])).toContainEqual(invalidation);
    });
  });
}

/**
 * The messages about one execution, once its last one has the given type. A run of a loaded
 * machine (in a cluster, through Redis) can take longer than vi.waitFor's default second.
 */
async function heardUntil(listener: Listener, executionId: string, type: string): Promise<Record<string, unknown>[]> {
  return vi.waitFor(
    () => {
      const about = listener.messages.filter((message) => message.executionId === executionId);
      expect(about.at(-1)).toMatchObject({ type });
      return about;
    },
    { timeout: 10_000 },
  );
}

/** The HTTP status a refused upgrade answers with. */
async function refusal(url: string): Promise<number> {
  const socket = new WebSocket(url);
  socket.on('error', () => undefined); // ending a refused upgrade reports one; expected here
  const [, response] = (await once(socket, 'unexpected-response')) as [unknown, { statusCode: number }];
  socket.terminate();
  return response.statusCode;
}

describe('GET /api/v1/events/subscribe-url', () => {
  it('hands out a ws URL with ts and sig that needs no other credential', async ({ api, owner }) => {
    const url = new URL(await subscribeUrl(api, session(owner)));
    expect(url.protocol).toBe('ws:');
    expect(url.pathname).toBe('/events/ws');
    expect(url.searchParams.get('ts')).toMatch(/^\d+$/);
    expect(url.searchParams.get('sig')).toMatch(/^[0-9a-f]{64}$/);
    expect(url.search).not.toContain(owner.token);
  });
});

describe('the control-plane channel', () => {
  it('carries the lifecycle of a run in its workspace as bare JSON objects', async ({ api, owner }) => {
    const listener = await connect(await subscribeUrl(api, session(owner)));
    const { created } = await runToEnd(api, owner, 'ticker', '2 5');
    const about = await heardUntil(listener, created.id, 'execution-completed');
    expect(about.map((message) => message.type)).toEqual([
      'execution-started',
      'execution-progress',
      'execution-progress',
      'execution-completed',
    ]);
    expect(about[0]).toEqual({
      type: 'execution-started',
      executionId: created.id,
      workspaceId: owner.user.personalWorkspaceId,
      status: 'working',
      at: expect.any(String),
    });
    expect(listener.messages).toContainEqual({
      type: 'cache-invalidate',
      keys: ['executions'],
      workspaceId: owner.user.personalWorkspaceId,
      at: expect.any(String),
    });
    listener.socket.close();
  });

  it('reports failures as execution-failed', async ({ api, owner }) => {
    const listener = await connect(await subscribeUrl(api, session(owner)));
    const { created } = await runToEnd(api, owner, 'crashes', 'x');
    const about = await heardUntil(listener, created.id, 'execution-failed');
    expect(about.at(-1)).toMatchObject({
      type: 'execution-failed',
      status: 'failed',
    });
    listener.socket.close();
  });

  it('belongs to the credential: a key bound to a team hears the team, not the personal workspace', async ({ api, owner }) => {
    const team = await createTeam(api, owner);
    const teamKey = await createKey(api, owner, 'team agent', { 'x-workspace-id': team.id });
    const teamListener = await connect(await subscribeUrl(api, { 'x-api-key': teamKey.key }));
    const personalListener = await connect(await subscribeUrl(api, session(owner)));
    const { created } = await runToEnd(api, owner, 'ticker', '1 1');
    // The team listener would hear the run in the same broadcast as the personal one.
    await heardUntil(personalListener, created.id, 'execution-completed');
    expect(personalListener.messages.some((m) => m.executionId === created.id)).toBe(true);
    expect(teamListener.messages.some((m) => m.executionId === created.id)).toBe(false);
    teamListener.socket.close();
    personalListener.socket.close();
  });

  it('pings to keep alive, and a closed client does not disturb the others', async ({ api, owner }) => {
    const url = await subscribeUrl(api, session(owner));
    const staying = await connect(url);
    const leaving = await connect(url);
    leaving.socket.terminate();
    const created = await createExecution(api, owner, 'ticker', '2 40');
    const stream = await streamOf(api, owner, created.id);
    await sendMessage(api, owner, created.id, '2 40');
    await stream.ended;
    await heardUntil(staying, created.id, 'execution-completed');
    await vi.waitFor(() => expect(staying.pings).toBeGreaterThan(0));
    staying.socket.close();
  });
});

describe('the signature, checked at the upgrade only', () => {
  it('refuses a tampered, re-pointed, expired or revoked URL with 401', async ({ server, api, owner }) => {
    const url = new URL(await subscribeUrl(api, session(owner)));
    const tampered = new URL(url);
    tampered.searchParams.set('sig', tamper(url.searchParams.get('sig') ?? ''));
    expect(await refusal(tampered.href)).toBe(401);

    const other = await signUp(api);
    const repointed = new URL(url);
    const theirs = new URL(await subscribeUrl(api, session(other)));
    repointed.searchParams.set('c', theirs.searchParams.get('c') ?? '');
    expect(await refusal(repointed.href)).toBe(401);

    const person = await signUp(api);
    const key = await createKey(api, person);
    const keyUrl = await subscribeUrl(api, { 'x-api-key': key.key });
    await api.delete(`/api/v1/keys/${key.id}`, { headers: session(person) });
    expect(await refusal(keyUrl)).toBe(401);

    const fresh = await subscribeUrl(api, session(owner));
    const open = await connect(fresh);
    server.clock.advance(300_001);
    expect(await refusal(fresh)).toBe(401);
    // Already open: the signature is not checked again.
    expect(open.socket.readyState).toBe(WebSocket.OPEN);
    open.socket.close();
  });
});

/** The raw answer to an upgrade asked of `path`, read until the server closes the connection. */
async function rawUpgrade(baseUrl: string, path: string): Promise<string> {
  const { port } = new URL(baseUrl);
  const socket = connectTcp(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
      `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n\r\n`,
  );
  let answer = '';
  socket.on('data', (chunk) => {
    answer += chunk;
  });
  await once(socket, 'close');
  return answer;
}

describe('an upgrade anywhere but the control channel', () => {
  it('is answered 404 in the standard envelope, and its connection closed', async ({ server, api, owner }) => {
    for (const path of ['/api/v1/me', '/api/v1/events/subscribe-url', '/no/such/address', '/events/ws/../../api/v1/me']) {
      const answer = await rawUpgrade(server.url, path);
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      expect(head, path).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
      expect(head.toLowerCase()).toContain('x-request-id: ');
      expect(JSON.parse(body)).toEqual({ error: { code: 'NOT_FOUND', message: expect.stringContaining('WebSocket') } });
    }
    // The channel itself still upgrades, and the API still answers.
    const listener = await connect(await subscribeUrl(api, session(owner)));
    expect((await api.get('/api/v1/me', { headers: session(owner) })).status).toBe(200);
    listener.socket.close();
  });
});

describe('a socket whose credential is revoked', () => {
  it('closes when its API key is revoked and hears nothing more; sockets of other credentials stay open', async ({ api }) => {
    const person = await signUp(api);
    const key = await createKey(api, person, 'revoked agent');
    const otherKey = await createKey(api, person, 'other agent');
    const revoked = await connect(await subscribeUrl(api, { 'x-api-key': key.key }));
    const byOtherKey = await connect(await subscribeUrl(api, { 'x-api-key': otherKey.key }));
    const bySession = await connect(await subscribeUrl(api, session(person)));

    const closed = closing(revoked);
    expect((await api.delete(`/api/v1/keys/${key.id}`, { headers: session(person) })).status).toBe(200);
    expect(await closed).toEqual(REVOKED);
    const heard = revoked.messages.length;
    await announceSomething(api, person, [byOtherKey, bySession]);
    expect(revoked.messages).toHaveLength(heard);
    for (const staying of [byOtherKey, bySession]) {
      expect(staying.socket.readyState).toBe(WebSocket.OPEN);
      expect(staying.messages.at(-1)).toEqual(invalidation);
      staying.socket.close();
    }
  });

  it('closes when its session logs out and hears nothing more; another session of the same user stays open', async ({ api }) => {
    const person = await signUp(api);
    const login = await api.post<{ token: string }>('/api/v1/auth/login', {
      body: { email: person.email, password: person.password },
    });
    expect(login.status).toBe(200);
    const loggingOut = await connect(await subscribeUrl(api, session(person)));
    const otherSession = await connect(await subscribeUrl(api, { 'x-auth-token': login.body.token }));
    const key = await createKey(api, person, 'agent', { 'x-auth-token': login.body.token });
    const byKey = await connect(await subscribeUrl(api, { 'x-api-key': key.key }));

    const closed = closing(loggingOut);
    expect((await api.post('/api/v1/auth/logout', { headers: session(person) })).status).toBe(200);
    expect(await closed).toEqual(REVOKED);
    const heard = loggingOut.messages.length;
    await announceSomething(api, { ...person, token: login.body.token }, [otherSession, byKey]);
    expect(loggingOut.messages).toHaveLength(heard);
    for (const staying of [otherSession, byKey]) {
      expect(staying.socket.readyState).toBe(WebSocket.OPEN);
      expect(staying.messages.at(-1)).toEqual(invalidation);
      staying.socket.close();
    }
  });
});
