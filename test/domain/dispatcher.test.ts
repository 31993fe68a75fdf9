import { describe, expect, onTestFinished, vi } from 'vitest';
import type { AppContext } from '../../src/context.js';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { createEndpoint } from '../../src/webhooks/endpoints.js';
import { queueWebhookEvent } from '../../src/webhooks/outbox.js';
import { pruneWebhookLog } from '../../src/webhooks/retention.js';
import { withDomain } from '../helpers/domain.js';
import { aUser, callerFor } from '../helpers/rows.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

// The receivers are on 127.0.0.1, so endpoints may be saved there; dispatchers are kicked by hand.
const it = withDomain({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '3600000' });

async function endpointWithReceiver(ctx: AppContext) {
  const receiver = await startReceiver();
  onTestFinished(() => receiver.close());
  const user = await aUser(ctx.db);
  const { endpoint } = await createEndpoint(ctx, callerFor(user), { url: receiver.url });
  return { receiver, workspaceId: user.workspaceId, endpoint };
}

async function queue(ctx: AppContext, workspaceId: string, count: number) {
  const nowIso = ctx.clock.now().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    for (let i = 0; i < count; i++) {
      await queueWebhookEvent(trx, nowIso, { workspaceId, type: 'execution.completed', data: { n: i } });
    }
  });
}

function started(ctx: AppContext) {
  const dispatcher = new WebhookDispatcher(ctx);
  dispatcher.start();
  onTestFinished(() => dispatcher.close());
  return dispatcher;
}

describe('webhook dispatch', () => {
  it('sends each message once when several nodes race for the same deliveries', async ({ ctx }) => {
    for (let round = 0; round < 10; round++) {
      const { receiver, workspaceId } = await endpointWithReceiver(ctx);
      await queue(ctx, workspaceId, 30);
      const nodes = Array.from({ length: 4 }, () => started(ctx));
      for (const node of nodes) node.kick();
      await vi.waitFor(() => expect(receiver.received.length).toBeGreaterThanOrEqual(30), { timeout: 10_000 });
      await Promise.all(nodes.map((node) => node.close()));
      expect(receiver.received).toHaveLength(30);
      expect(new Set(receiver.received.map((request) => request.id)).size).toBe(30);
    }
  });

  it('refuses at delivery a saved endpoint whose host is no longer a public address', async ({ ctx }) => {
    const { receiver, workspaceId, endpoint } = await endpointWithReceiver(ctx);
    // The operator has since turned private addresses off; the saved URL still points at 127.0.0.1.
    const strict = { ...ctx, config: { ...ctx.config, webhooks: { ...ctx.config.webhooks, allowPrivateAddresses: false } } };
    await queue(ctx, workspaceId, 1);
    started(strict).kick();
    const attempts = () =>
      ctx.db
        .selectFrom('webhook_deliveries')
        .select(['attempts', 'last_error', 'endpoint_id'])
        .where('endpoint_id', '=', endpoint.id)
        .execute();
    await vi.waitFor(async () => expect((await attempts())[0]?.attempts).toBe(1));
    expect((await attempts())[0]?.last_error).toBe('127.0.0.1 is not a public address (127.0.0.1)');
    expect(receiver.received).toEqual([]);
  });

  it('counts an attempt it cannot sign (a secret sealed under another signing secret) as failed, and retries it', async ({
    ctx,
  }) => {
    const { receiver, workspaceId, endpoint } = await endpointWithReceiver(ctx);
    await ctx.db
      .updateTable('webhook_endpoints')
      .set({ secret_sealed: 'AAAA.BBBB.CCCC' })
      .where('id', '=', endpoint.id)
      .execute();
    await queue(ctx, workspaceId, 1);
    started(ctx).kick();
    const delivery = () =>
      ctx.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpoint.id).executeTakeFirstOrThrow();
    await vi.waitFor(async () => expect((await delivery()).attempts).toBe(1));
    expect(await delivery()).toMatchObject({
      status: 'pending',
      locked_until: null,
      last_error: 'the attempt could not be made (see the server log)',
    });
    expect((await delivery()).next_attempt_at).not.toBeNull();
    expect(receiver.received).toEqual([]);
  });

  it('lets a lapsed claim of a dead node be taken over, but not a live one', async ({ ctx, domain }) => {
    const { receiver, workspaceId } = await endpointWithReceiver(ctx);
    await queue(ctx, workspaceId, 1);
    const nowIso = ctx.clock.now().toISOString();
    // A node claimed it and died before sending: its lease runs for the timeout plus a margin.
    await ctx.db
      .updateTable('webhook_deliveries')
      .set({ locked_until: new Date(domain.clock.nowMs() + 40_000).toISOString() })
      .where('next_attempt_at', '<=', nowIso)
      .execute();
    const node = started(ctx);
    node.kick();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(receiver.received).toHaveLength(0);
    domain.clock.advance(41_000);
    node.kick();
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1));
  });

  it('forgets settled messages past the retention with their logs, and keeps pending and recent ones', async ({
    ctx,
    domain,
  }) => {
    const { receiver, workspaceId, endpoint } = await endpointWithReceiver(ctx);
    await queue(ctx, workspaceId, 2);
    const node = started(ctx);
    node.kick();
    await vi.waitFor(async () => {
      const statuses = await ctx.db
        .selectFrom('webhook_deliveries')
        .select('status')
        .where('endpoint_id', '=', endpoint.id)
        .execute();
      expect(statuses.map((row) => row.status)).toEqual(['delivered', 'delivered']);
    });
    receiver.answer(() => undefined);
    await node.close();
    // One more, still pending (its node is gone), queued 29 days later.
    domain.clock.advance(29 * 86_400_000);
    await queue(ctx, workspaceId, 1);
    const left = () =>
      ctx.db
        .selectFrom('webhook_messages')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .execute()
        .then((rows) => rows.length);
    // Other tests' messages share the database: count this workspace's.
    await pruneWebhookLog(ctx);
    expect(await left()).toBe(3);
    domain.clock.advance(2 * 86_400_000);
    expect(await pruneWebhookLog(ctx)).toBeGreaterThanOrEqual(2);
    expect(await left()).toBe(1);
    const attempts = await ctx.db
      .selectFrom('webhook_attempts')
      .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
      .select('webhook_attempts.number')
      .where('webhook_deliveries.endpoint_id', '=', endpoint.id)
      .execute();
    expect(attempts).toEqual([]);
    domain.clock.advance(365 * 86_400_000);
    await pruneWebhookLog(ctx);
    expect(await left()).toBe(1);
  });
});
