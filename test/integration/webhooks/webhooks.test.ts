import { describe, expect, onTestFinished, vi } from 'vitest';
import { buyWithLocalCheckout } from '../../helpers/billing.js';
import { runToEnd } from '../../helpers/executions.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import { withServer, withServerPerTest } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';
import { type Answer, answerWith, type Receiver, startReceiver } from '../../helpers/webhook-receiver.js';

// Receivers listen on 127.0.0.1, so this server allows private addresses; the refusal of
// them is webhooks-access.test.ts's. Retries come 5 s and then 60 s after a failure.
// A receiver checks timestamps against its own clock: the server's starts at the real time,
// and tests that move it get a server of their own.
const settings = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_POLL_MS: '20',
  WEBHOOK_RETRY_SCHEDULE: '5,60',
  WEBHOOK_TIMEOUT_MS: '1500',
};
const it = withServer(settings, { clockStart: new Date() });
const itMovingTime = withServerPerTest(settings, { clockStart: new Date() });

interface Endpoint {
  id: string;
  secret: string;
  events: string[];
}

interface Delivery {
  id: string;
  messageId: string;
  eventType: string;
  status: string;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
}

async function receiverFor(api: Client, user: TestUser, answer?: Answer, events?: string[]) {
  const receiver = await startReceiver(answer);
  onTestFinished(() => receiver.close());
  const created = await api.post<Endpoint>('/api/v1/webhooks', {
    body: { url: receiver.url, ...(events ? { events } : {}) },
    headers: session(user),
  });
  expect(created.status).toBe(201);
  return { receiver, endpoint: created.body };
}

async function deliveriesOf(api: Client, user: TestUser, endpointId: string) {
  const page = await api.get<{ items: Delivery[] }>(`/api/v1/webhooks/${endpointId}/deliveries`, { headers: session(user) });
  expect(page.status).toBe(200);
  return page.body.items;
}

/** Waits until the endpoint's newest delivery is recorded as `expected` (an attempt is logged after its answer). */
async function settled(api: Client, user: TestUser, endpointId: string, expected: Partial<Delivery>) {
  return vi.waitFor(async () => {
    const [newest] = await deliveriesOf(api, user, endpointId);
    expect(newest).toMatchObject(expected);
    return newest as Delivery;
  });
}

const writeOneFile = JSON.stringify({ files: [{ path: 'note.txt', text: 'hello' }] });

function typesOf(receiver: Receiver, secret: string) {
  return receiver.received.map((request) => receiver.verified(request, secret).type).sort();
}

describe('outbound webhooks', () => {
  it('signs a completed run and its artifact so that a Standard Webhooks verifier accepts them', async ({ api }) => {
    const user = await signUp(api);
    const { receiver, endpoint } = await receiverFor(api, user);
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const { created } = await runToEnd(api, user, 'writer', writeOneFile);

    await vi.waitFor(() => expect(receiver.received).toHaveLength(2));
    expect(typesOf(receiver, endpoint.secret)).toEqual(['artifact.created', 'execution.completed']);
    const bodies = receiver.received.map((request) => receiver.verified(request, endpoint.secret));
    const completed = bodies.find((body) => body.type === 'execution.completed');
    const artifact = bodies.find((body) => body.type === 'artifact.created');
    expect(completed?.data).toMatchObject({
      executionId: created.id,
      workspaceId: user.user.personalWorkspaceId,
      skillSlug: 'writer',
      status: 'completed',
      stopReason: 'end_turn',
    });
    expect(artifact?.data).toMatchObject({ executionId: created.id, artifactId: completed?.data.artifactId, contentSize: 5 });
    // One message id per event, in Standard Webhooks' shape.
    expect(new Set(receiver.received.map((request) => request.id)).size).toBe(2);
    for (const request of receiver.received) expect(request.id).toMatch(/^msg_[A-Za-z0-9]+$/);
    // A verifier with another secret, or a changed body, refuses it: the check above was real.
    const [first] = receiver.received;
    if (!first) throw new Error('no request');
    expect(() => receiver.verified(first, `whsec_${Buffer.alloc(32, 7).toString('base64')}`)).toThrow();
    expect(() => receiver.verified({ ...first, body: first.body.replace('"data"', '"data" ') }, endpoint.secret)).toThrow();

    // The attempt is logged once the receiver's answer is in.
    await vi.waitFor(async () => {
      const deliveries = await deliveriesOf(api, user, endpoint.id);
      expect(deliveries.map((delivery) => [delivery.status, delivery.attempts, delivery.lastStatusCode])).toEqual([
        ['delivered', 1, 204],
        ['delivered', 1, 204],
      ]);
    });
  });

  it('tells of a failed run with its reason', async ({ api }) => {
    const user = await signUp(api);
    const { receiver, endpoint } = await receiverFor(api, user);
    const { created } = await runToEnd(api, user, 'crashes', 'go');
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1));
    const [request] = receiver.received;
    if (!request) throw new Error('no request');
    const body = receiver.verified(request, endpoint.secret);
    expect(body.type).toBe('execution.failed');
    expect(body.data).toMatchObject({ executionId: created.id, status: 'failed', stopReason: 'error' });
    expect(String(body.data.reason)).toContain('deliberate crash');
  });

  it('tells the buyer’s own workspace that credits were granted', async ({ api, server }) => {
    const user = await signUp(api);
    const { receiver, endpoint } = await receiverFor(api, user, undefined, ['credits.granted']);
    await buyWithLocalCheckout(api, server.url, user);
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1));
    const [request] = receiver.received;
    if (!request) throw new Error('no request');
    const body = receiver.verified(request, endpoint.secret);
    expect(body).toMatchObject({ type: 'credits.granted', data: { userId: user.user.id, amount: 100 } });
    expect(body.data.balance).toBe(Number(body.data.amount) + 1000);
  });

  it('sends only the event types an endpoint subscribed to, and nothing to a disabled one', async ({ api }) => {
    const user = await signUp(api);
    const failures = await receiverFor(api, user, undefined, ['execution.failed']);
    const disabled = await receiverFor(api, user);
    const off = await api.patch(`/api/v1/webhooks/${disabled.endpoint.id}`, { body: { enabled: false }, headers: session(user) });
    expect(off.status).toBe(200);
    await runToEnd(api, user, 'writer', writeOneFile);
    await runToEnd(api, user, 'crashes', 'go');
    await vi.waitFor(() => expect(failures.receiver.received).toHaveLength(1));
    expect(typesOf(failures.receiver, failures.endpoint.secret)).toEqual(['execution.failed']);
    expect(await deliveriesOf(api, user, disabled.endpoint.id)).toEqual([]);
    expect(disabled.receiver.received).toEqual([]);
  });

  itMovingTime('retries a failed attempt on the schedule, logs every attempt, and stops at the last', async ({ api, server }) => {
    const user = await signUp(api);
    const { receiver, endpoint } = await receiverFor(api, user, answerWith(500), ['execution.completed']);
    await runToEnd(api, user, 'writer', writeOneFile);
    const delivery = await settled(api, user, endpoint.id, { status: 'pending', attempts: 1, lastStatusCode: 500 });
    // The retry waits for its time on the server's clock, however often the server looks.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(1);

    server.clock.advance(5_000);
    await settled(api, user, endpoint.id, { status: 'pending', attempts: 2 });
    server.clock.advance(60_000);
    await settled(api, user, endpoint.id, { status: 'failed', attempts: 3, nextAttemptAt: null });
    server.clock.advance(3_600_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(3);
    // Every attempt carries the same message id, each with its own timestamp and signature.
    expect(new Set(receiver.received.map((request) => request.id)).size).toBe(1);
    for (const request of receiver.received) receiver.verified(request, endpoint.secret);

    const detail = await api.get<{
      attemptLog: { number: number; statusCode: number; error: string }[];
      payload: { type: string };
    }>(`/api/v1/webhooks/${endpoint.id}/deliveries/${delivery.id}`, { headers: session(user) });
    expect(detail.status).toBe(200);
    expect(detail.body.payload.type).toBe('execution.completed');
    expect(detail.body.attemptLog.map((attempt) => [attempt.number, attempt.statusCode, attempt.error])).toEqual([
      [1, 500, 'the receiver answered 500'],
      [2, 500, 'the receiver answered 500'],
      [3, 500, 'the receiver answered 500'],
    ]);
  });

  itMovingTime(
    'succeeds on a retry once the receiver recovers, and redelivers a message under its own id',
    async ({ api, server }) => {
      const user = await signUp(api);
      const { receiver, endpoint } = await receiverFor(api, user, answerWith(503), ['execution.completed']);
      await runToEnd(api, user, 'writer', writeOneFile);
      await settled(api, user, endpoint.id, { status: 'pending', attempts: 1, lastStatusCode: 503 });
      receiver.answer(answerWith(200));
      server.clock.advance(5_000);
      const delivered = await settled(api, user, endpoint.id, { status: 'delivered', attempts: 2, lastStatusCode: 200 });

      const again = await api.post<Delivery>(`/api/v1/webhooks/${endpoint.id}/deliveries/${delivered.id}/redeliver`, {
        headers: session(user),
      });
      expect(again.status).toBe(202);
      expect(again.body.id).not.toBe(delivered.id);
      expect(again.body.messageId).toBe(delivered.messageId);
      await settled(api, user, endpoint.id, { id: again.body.id, status: 'delivered', attempts: 1 });
      expect(receiver.received).toHaveLength(3);
      expect(new Set(receiver.received.map((request) => request.id))).toEqual(new Set([delivered.messageId]));
    },
  );

  it('tries a delivery that waits for its retry at once when asked to redeliver it', async ({ api }) => {
    const user = await signUp(api);
    const { receiver, endpoint } = await receiverFor(api, user, answerWith(500));
    await api.post(`/api/v1/webhooks/${endpoint.id}/test`, { headers: session(user) });
    const waiting = await settled(api, user, endpoint.id, { status: 'pending', attempts: 1 });
    receiver.answer(answerWith(200));
    const again = await api.post<Delivery>(`/api/v1/webhooks/${endpoint.id}/deliveries/${waiting.id}/redeliver`, {
      headers: session(user),
    });
    expect(again.status).toBe(202);
    expect(again.body.id).toBe(waiting.id);
    await settled(api, user, endpoint.id, { id: waiting.id, status: 'delivered', attempts: 2, nextAttemptAt: null });
    expect(await deliveriesOf(api, user, endpoint.id)).toHaveLength(1);
    expect(receiver.received).toHaveLength(2);
  });

  it('does not follow redirects and gives up on a receiver that does not answer in time', async ({ api }) => {
    const user = await signUp(api);
    const moved = await receiverFor(api, user, (_nth, response) => {
      response.writeHead(307, { location: 'http://127.0.0.1:9/elsewhere' }).end();
    });
    const silent = await receiverFor(api, user, () => undefined);
    const test = await api.post<Delivery>(`/api/v1/webhooks/${moved.endpoint.id}/test`, { headers: session(user) });
    expect(test.status).toBe(202);
    expect(test.body.eventType).toBe('webhook.test');
    await api.post(`/api/v1/webhooks/${silent.endpoint.id}/test`, { headers: session(user) });
    await vi.waitFor(
      async () => {
        expect((await deliveriesOf(api, user, moved.endpoint.id))[0]).toMatchObject({
          attempts: 1,
          lastStatusCode: 307,
          lastError: 'redirects are not followed',
        });
        expect((await deliveriesOf(api, user, silent.endpoint.id))[0]).toMatchObject({
          attempts: 1,
          lastStatusCode: null,
          lastError: 'no answer within 1500 ms',
        });
      },
      { timeout: 10_000 },
    );
    expect(moved.receiver.received).toHaveLength(1);
    expect(moved.receiver.verified(moved.receiver.received[0] as never, moved.endpoint.secret).type).toBe('webhook.test');
  });

  it('signs with the rotated secret and, for a day, the old one beside it, and never shows a secret again', async ({
    api,
    server,
  }) => {
    const user = await signUp(api);
    const { receiver, endpoint } = await receiverFor(api, user);
    const rotated = await api.post<{ secret: string }>(`/api/v1/webhooks/${endpoint.id}/secret`, { headers: session(user) });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    await api.post(`/api/v1/webhooks/${endpoint.id}/test`, { headers: session(user) });
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1));
    const [request] = receiver.received;
    if (!request) throw new Error('no request');
    expect(receiver.verified(request, rotated.body.secret).type).toBe('webhook.test');
    expect(receiver.verified(request, endpoint.secret).type).toBe('webhook.test');
    expect(request.signature.split(' ')).toHaveLength(2);

    const listed = await api.get('/api/v1/webhooks', { headers: session(user) });
    const one = await api.get(`/api/v1/webhooks/${endpoint.id}`, { headers: session(user) });
    for (const text of [listed.text, one.text, server.logs.join('\n')]) {
      expect(text).not.toContain(endpoint.secret.slice(6));
      expect(text).not.toContain(rotated.body.secret.slice(6));
    }
  });

  itMovingTime('stops signing with a rotated-out secret a day after the rotation', async ({ api, server }) => {
    const user = await signUp(api);
    const { receiver, endpoint } = await receiverFor(api, user);
    const rotated = await api.post<{ secret: string }>(`/api/v1/webhooks/${endpoint.id}/secret`, { headers: session(user) });
    server.clock.advance(24 * 3_600_000 + 1000);
    await api.post(`/api/v1/webhooks/${endpoint.id}/test`, { headers: session(user) });
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1));
    const [request] = receiver.received;
    if (!request) throw new Error('no request');
    expect(request.signature.split(' ')).toHaveLength(1);
    // The receiver checks the timestamp against its own clock: it reads the server's moved one.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(server.clock.now());
      expect(receiver.verified(request, rotated.body.secret).type).toBe('webhook.test');
      expect(() => receiver.verified(request, endpoint.secret)).toThrow('No matching signature found');
    } finally {
      vi.useRealTimers();
    }
  });
});
