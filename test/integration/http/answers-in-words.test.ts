import { describe, expect } from 'vitest';
import { createExecution } from '../../helpers/executions.js';
import { session, signUp } from '../../helpers/factories.js';
import { withApp } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';

/**
 * Refusals a newcomer met that did not say what happened (issue 51, item 7): an unknown pack
 * answered "The email is missing", an unknown event type "content is missing", a wrong event
 * name listed one of the four, and a known address asked the wrong way answered 404.
 */
const it = withApp({ RATE_LIMIT_REST_PER_MINUTE: '1000000' }).extend('person', { scope: 'file' }, ({ api }) => signUp(api));

const PROGRAM_WORDS =
  /must NOT|must have required|must match|must be equal|(body|querystring|params)\/|\b(GET|POST|PUT|PATCH|DELETE)\b|\/api\/v1|packId/;

const refusal = (message: string | RegExp) => ({ error: { code: 'INVALID_INPUT', message } });

async function refused(api: Client, path: string, body: unknown, headers: Record<string, string>) {
  const reply = await api.post<{ error: { code: string; message: string } }>(path, { body, headers });
  expect(reply.status, JSON.stringify(body)).toBe(400);
  expect(reply.body.error.message, JSON.stringify(body)).not.toMatch(PROGRAM_WORDS);
  return reply.body;
}

describe('buying a pack', () => {
  const ok = { email: 'ada@example.com', successUrl: 'https://example.com/done', cancelUrl: 'https://example.com/back' };
  const unknownPack = refusal(
    'There is no pack “pack_7” on offer. Choose pack_100, pack_250, pack_500, pack_1000 or pack_5000; `skillet packs` and the Billing page list them with their prices.',
  );

  it('names an unknown pack and the packs on offer before any other field', async ({ api, person }) => {
    for (const body of [
      { packId: 'pack_7' },
      { packId: 'pack_7', ...ok },
      { packId: 'pack_7', email: 'not an address', successUrl: 'nowhere' },
    ]) {
      expect(await refused(api, '/api/v1/billing/purchase', body, session(person))).toEqual(unknownPack);
    }
  });

  it('gives the most useful first message for each thing wrong', async ({ api, person }) => {
    const cases: [unknown, string][] = [
      [{}, 'The pack id is missing.'],
      [ok, 'The pack id is missing.'],
      [{ packId: 'pack_100' }, 'The email is missing.'],
      [{ packId: 'pack_100', ...ok, email: 'ada' }, 'The email is not an email address, such as ada@example.com.'],
      [{ packId: 'pack_100', email: 'ada@example.com' }, 'The success URL is missing.'],
      [
        { packId: 'pack_100', ...ok, successUrl: 'example.com/done' },
        'The success URL must be a whole web address, such as https://example.com/done.',
      ],
      [
        { packId: 'pack_100', ...ok, cancelUrl: '/billing' },
        'The cancel URL must be a whole web address, such as https://example.com/done.',
      ],
      [{ packId: 'x'.repeat(51), ...ok }, 'The pack id is too long (at most 50 characters).'],
      [{ packId: 100, ...ok }, 'The pack id must be a text.'],
    ];
    for (const [body, message] of cases) {
      expect(await refused(api, '/api/v1/billing/purchase', body, session(person))).toEqual(refusal(message));
    }
  });

  it('asks for credentials before judging the pack', async ({ api }) => {
    const anonymous = await api.post('/api/v1/billing/purchase', { body: { packId: 'pack_7' } });
    expect(anonymous.status).toBe(401);
  });
});

describe('sending events to a run', () => {
  it('names the event types when one is unknown, and the missing part when a known one lacks it', async ({ api, person }) => {
    const { id } = await createExecution(api, person, 'ticker', '1 0');
    const path = `/api/v1/executions/${id}/events`;
    const types = '“user.message”, “user.interrupt”';
    const cases: [unknown, string][] = [
      [{ events: [{ type: 'user.foo' }] }, `The type of events item 1 must be one of ${types}.`],
      [{ events: [{ type: 'user.interrupt' }, { type: 'interrupt' }] }, `The type of events item 2 must be one of ${types}.`],
      [{ events: [{ content: [{ type: 'text', text: 'hi' }] }] }, 'The type of events item 1 is missing.'],
      [{ events: [{ type: 'user.message' }] }, 'The content of events item 1 is missing.'],
      [{ events: [{ type: 'user.message', content: 'hi' }] }, 'The content of events item 1 must be a list.'],
      [{ events: ['user.interrupt'] }, 'Item 1 of the events must be an object.'],
    ];
    for (const [body, message] of cases) {
      expect(await refused(api, path, body, session(person))).toEqual(refusal(message));
    }
  });
});

describe('webhook event names', () => {
  it('lists every event an endpoint can subscribe to', async ({ api, person }) => {
    const all = '“execution.completed”, “execution.failed”, “artifact.created”, “credits.granted”';
    for (const events of [['execution.done'], ['execution.completed', 'run.failed']]) {
      const item = events.length;
      const body = { url: 'https://93.184.215.14/hooks', events };
      expect(await refused(api, '/api/v1/webhooks', body, session(person))).toEqual(
        refusal(`Item ${item} of the events must be one of ${all}.`),
      );
    }
    const created = await api.post<{ id: string }>('/api/v1/webhooks', {
      body: { url: 'https://93.184.215.14/hooks' },
      headers: session(person),
    });
    const changed = await api.patch(`/api/v1/webhooks/${created.body.id}`, {
      body: { events: ['credits.spent'] },
      headers: session(person),
    });
    expect([changed.status, changed.body]).toEqual([400, refusal(`Item 1 of the events must be one of ${all}.`)]);
  });
});
