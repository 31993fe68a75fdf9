import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { sendPage } from '../http/pages.js';
import { connectOutcomePage, connectReviewPage, connectSignInPage } from './connect-page.js';
import { ConnectDecisionForm, ConnectPageParams, ConnectSignInForm } from './connect-page.schemas.js';
import { decideConnectOnPage, reviewConnectOnPage } from './connect-page-steps.js';

/** `approveUrl`: where the key's owner signs in and approves or denies the narrowing. */
export function connectPageRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/agents/connect/:requestId',
      { config: { auth: 'public' }, schema: { hide: true, params: ConnectPageParams } },
      async (request, reply) => sendPage(reply, 200, connectSignInPage({ requestId: request.params.requestId })),
    );

    app.post(
      '/agents/connect/:requestId/review',
      { config: { auth: 'public' }, schema: { hide: true, params: ConnectPageParams, body: ConnectSignInForm } },
      async (request, reply) => {
        const { requestId } = request.params;
        try {
          return sendPage(reply, 200, connectReviewPage(await reviewConnectOnPage(ctx, requestId, request.body)));
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          return sendPage(
            reply,
            error.status,
            connectSignInPage({ requestId, email: request.body.email, message: error.message }),
          );
        }
      },
    );

    app.post(
      '/agents/connect/:requestId/decision',
      { config: { auth: 'public' }, schema: { hide: true, params: ConnectPageParams, body: ConnectDecisionForm } },
      async (request, reply) => {
        const { requestId } = request.params;
        try {
          const decided = await decideConnectOnPage(ctx, requestId, request.body);
          if (!decided)
            return sendPage(reply, 400, connectSignInPage({ requestId, message: 'This page has expired; sign in again' }));
          if (decided.status === 'denied') {
            return sendPage(
              reply,
              200,
              connectOutcomePage('Request denied', 'The key keeps the access it had. You can close this page.'),
            );
          }
          return sendPage(
            reply,
            200,
            connectOutcomePage('Key narrowed', `The key is now limited to: ${decided.scopes.join(', ')}.`),
          );
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          return sendPage(reply, error.status, connectOutcomePage('Not done', error.message));
        }
      },
    );
  };
}
