import { describe, expect } from 'vitest';
import { findExecution } from '../../src/runs/executions.store.js';
import { type Created, createExecution } from '../helpers/executions.js';
import { session, signUp } from '../helpers/factories.js';
import { withApp } from '../helpers/fixtures.js';
import { anArtifact } from '../helpers/rows.js';
import type { FuzzRequest } from './openapi-arbitraries.js';
import { answerChecker, type OpenApiDocument, operationsOf } from './openapi-document.js';
import { verifyNoOracle, withMadeUpIds } from './properties.js';
import { type Answer, send } from './send.js';
import { UNLIMITED } from './settings.js';

/** The cases the fuzzer found, kept as fixed examples so they stay fixed whatever the seed. */
const it = withApp(UNLIMITED)
  .extend('document', { scope: 'file' }, async ({ api }) => (await api.get<OpenApiDocument>('/openapi.json')).body)
  .extend('person', { scope: 'file' }, ({ api }) => signUp(api))
  .extend('documented', { scope: 'file' }, ({ document }) => {
    const check = answerChecker(document);
    const operations = operationsOf(document);
    // Whether an answer is what the document says `METHOD path` gives for its status.
    return (id: string, status: number, body: unknown) => {
      const operation = operations.find((one) => one.id === id);
      if (!operation) throw new Error(`${id} is not documented`);
      return check(operation, status, 'application/json', body);
    };
  });

describe('found by the fuzzer', () => {
  it('a thread id of 101 to 200 characters, which the schema takes, reaches the route', async ({ api, person }) => {
    // The router's own 100-character limit refused it with a 400 "exceeding the max param length".
    const threadId = 't'.repeat(150);
    const reply = await api.post(`/api/v1/agents/assistant/threads/${threadId}/approvals/a1`, {
      body: { approved: true },
      headers: session(person),
    });
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('an over-long artifact id is refused in the artifact shape, as the artifact routes answer', async ({
    api,
    person,
    documented,
  }) => {
    // It was refused by the router in the standard envelope instead.
    const reply = await api.get(`/api/v1/artifacts/${'a'.repeat(101)}/raw`, { headers: session(person) });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: expect.any(String), isRunning: false });
    expect(documented('GET /api/v1/artifacts/{artifactId}/raw', reply.status, reply.body)).toMatchObject({ ok: true });
  });

  it('an artifact whose run is still going answers the 429 the document gives for the artifact routes', async ({
    api,
    server,
    person,
    documented,
  }) => {
    // The document gave every route's 429 as the rate-limit or the execution-running body, but
    // the artifact routes say a run is going in their own shape: {error, isRunning: true}.
    const created: Created = await createExecution(api, person, 'empty', 'input');
    const execution = await findExecution(server.db.db, created.id);
    if (!execution) throw new Error('the execution is gone');
    const pending = await anArtifact(server.db.db, { execution, status: 'pending' });
    const reply = await api.get(`/api/v1/artifacts/${pending.id}/raw`, { headers: session(person) });
    expect(reply.status).toBe(429);
    expect(reply.body).toEqual({ error: expect.any(String), isRunning: true });
    expect(documented('GET /api/v1/artifacts/{artifactId}/raw', reply.status, reply.body)).toMatchObject({ ok: true });
  });

  it("removing A's own resource with one of B's ids in an unknown query parameter is not taken for an oracle", async ({
    api,
    server,
    document,
    person,
  }) => {
    // The fuzzer sent DELETE /api/v1/webhooks/<A's>?x=<B's>: 200, then the same with B's id
    // made up, which found A's endpoint gone (404), and took the difference for a tell.
    const stranger = await signUp(api);
    const endpointOf = async (user: typeof person) => {
      const reply = await api.post<{ id: string }>('/api/v1/webhooks', {
        body: { url: 'https://93.184.215.14/hooks', description: 'fuzzed' },
        headers: session(user),
      });
      expect(reply.status).toBe(201);
      return reply.body.id;
    };
    const [mine, theirs] = [await endpointOf(person), await endpointOf(stranger)];
    const operation = operationsOf(document).find((one) => one.id === 'DELETE /api/v1/webhooks/{id}');
    if (!operation) throw new Error('DELETE /api/v1/webhooks/{id} is not documented');
    const asA = (url: string): FuzzRequest => ({
      method: 'DELETE',
      url,
      headers: session(person),
      credential: 'A',
      routed: true,
    });
    const compare = async (request: FuzzRequest) => {
      const madeUp = withMadeUpIds(request, [theirs]);
      if (!madeUp) throw new Error('the request names none of B’s ids');
      const first = await send(server, operation, request);
      const second = await send(server, operation, madeUp);
      verifyNoOracle(request, first, madeUp, second);
      return [first.status, second.status];
    };

    expect(await compare(asA(`/api/v1/webhooks/${mine}?x=${theirs}`))).toEqual([200, 404]);
    // B's endpoint named in the path is another matter: as unknown to A as a made-up one, and left alone.
    expect(await compare(asA(`/api/v1/webhooks/${theirs}`))).toEqual([404, 404]);
    expect((await api.get(`/api/v1/webhooks/${theirs}`, { headers: session(stranger) })).status).toBe(200);
    // And the excuse is no wider: a path naming B's id that succeeded where a made-up one is unknown is still a tell.
    const answer = (status: number): Answer => ({ status, contentType: 'application/json', body: {}, text: '' });
    const aimed = asA(`/api/v1/webhooks/${theirs}`);
    const madeUp = withMadeUpIds(aimed, [theirs]);
    if (!madeUp) throw new Error('the request names none of B’s ids');
    expect(() => verifyNoOracle(aimed, answer(200), madeUp, answer(404))).toThrow(/told apart/);
  });
});
