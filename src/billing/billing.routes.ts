import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { NotFound } from '../errors.js';
import { html, pageLayout } from '../http/html.js';
import { callerOf } from '../identity/credentials.js';
import {
  BalanceSchema,
  ByokDeleted,
  ByokStatusSchema,
  CheckoutBody,
  CheckoutCreated,
  Modes,
  Packs,
  PublishableKey,
  SubscriptionStatusSchema,
  Tier,
  Transactions,
} from '../sdk/schemas/billing.js';
import {
  balanceView,
  modesView,
  packsView,
  purchasePack,
  requireOfferedPack,
  subscribe,
  tierView,
  transactionsView,
} from './billing.js';
import { BalanceQuery, ByokBody, PACK_ID_MAX, PurchaseBody, ReturnParams } from './billing.schemas.js';
import { byokStatus, deleteByokKey, storeByokKey } from './byok.js';
import { skillStartNeeds } from './start-needs.js';
import { cancelSubscription, subscriptionStatus } from './subscription.js';

const RETURN_TARGETS: Record<string, string> = { success: 'payment-success', cancel: 'payment-cancel' };

export function billingRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const user = { auth: 'user' as const };

    app.get(
      '/billing/balance',
      { config: user, schema: { querystring: BalanceQuery, response: { 200: BalanceSchema } } },
      async (request) => {
        const caller = callerOf(request);
        const { skill } = request.query;
        return balanceView(ctx, caller, skill === undefined ? undefined : await skillStartNeeds(ctx, caller, skill));
      },
    );
    app.get('/billing/packs', { config: user, schema: { response: { 200: Packs } } }, async (request) =>
      packsView(ctx, callerOf(request)),
    );
    app.post(
      '/billing/purchase',
      {
        config: user,
        schema: { body: PurchaseBody, response: { 200: CheckoutCreated } },
        // The pack first, ahead of the schema's checks of the other fields, which would name
        // a missing email to someone whose pack does not exist. The schema keeps its length bound.
        preValidation: async (request) => {
          const { packId } = (request.body ?? {}) as { packId?: unknown };
          if (typeof packId === 'string' && packId.length > 0 && packId.length <= PACK_ID_MAX) requireOfferedPack(packId);
        },
      },
      async (request) => {
        const { packId, ...checkout } = request.body;
        return purchasePack(ctx, callerOf(request), packId, checkout);
      },
    );
    app.post(
      '/billing/subscribe',
      { config: user, schema: { body: CheckoutBody, response: { 200: CheckoutCreated } } },
      async (request) => subscribe(ctx, callerOf(request), request.body),
    );
    app.get('/billing/transactions', { config: user, schema: { response: { 200: Transactions } } }, async (request) =>
      transactionsView(ctx, callerOf(request)),
    );
    app.get('/billing/subscription/tier', { config: user, schema: { response: { 200: Tier } } }, async (request) =>
      tierView(ctx, callerOf(request)),
    );
    app.get('/billing/subscription', { config: user, schema: { response: { 200: SubscriptionStatusSchema } } }, async (request) =>
      subscriptionStatus(ctx, callerOf(request)),
    );
    app.post(
      '/billing/subscription/cancel',
      { config: user, schema: { response: { 200: SubscriptionStatusSchema } } },
      async (request) => cancelSubscription(ctx, callerOf(request)),
    );
    app.get('/billing/subscription/info', { config: user, schema: { response: { 200: Modes } } }, async () => modesView());
    app.get('/billing/publishable-key', { config: user, schema: { response: { 200: PublishableKey } } }, async () => ({
      publishableKey: ctx.payments.publishableKey,
    }));

    app.get('/byok', { config: user, schema: { response: { 200: ByokStatusSchema } } }, async (request) =>
      byokStatus(ctx, callerOf(request).userId),
    );
    app.put('/byok', { config: user, schema: { body: ByokBody, response: { 200: ByokStatusSchema } } }, async (request) =>
      storeByokKey(ctx, callerOf(request).userId, request.body.key),
    );
    app.delete('/byok', { config: user, schema: { response: { 200: ByokDeleted } } }, async (request) =>
      deleteByokKey(ctx, callerOf(request).userId),
    );

    // Where a native client's browser lands after paying; it only sends the person back to the app.
    app.get(
      '/billing/return/:outcome',
      { config: { auth: 'public' }, schema: { hide: true, params: ReturnParams } },
      async (request, reply) => {
        const target = RETURN_TARGETS[request.params.outcome];
        if (!target) throw new NotFound('No such return page');
        const deepLink = `${ctx.config.billing.appScheme}://${target}`;
        const title = request.params.outcome === 'success' ? 'Payment received' : 'Payment cancelled';
        const page = pageLayout(
          title,
          html`<h1>${title}</h1><p><a href="${deepLink}">Return to the app</a></p>`,
          html`<meta http-equiv="refresh" content="0;url=${deepLink}">`,
        );
        return reply
          .header('cache-control', 'no-store')
          .header('content-security-policy', "default-src 'none'; style-src 'self'; frame-ancestors 'none'")
          .type('text/html; charset=utf-8')
          .send(page);
      },
    );
  };
}
