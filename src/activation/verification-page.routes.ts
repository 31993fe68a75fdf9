import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { PAGE_STYLESHEET } from '../http/html.js';
import { PAGE_CSS } from '../http/page-style.js';
import { sendPage } from '../http/pages.js';
import { outcomePage, reviewPage, signInPage } from './verification-page.js';
import { CodeQuery, DecisionForm, ReviewForm } from './verification-page.schemas.js';
import { decideOnPage, reviewOnPage, ticketHolder } from './verification-steps.js';

/** `/activate`: where a person signs in, checks the code and approves or denies the device. */
export function verificationPageRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    // Every server-rendered page's stylesheet, served here since the activation page was the first of them.
    app.get(PAGE_STYLESHEET, { config: { auth: 'public' }, schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(PAGE_CSS),
    );

    app.get('/activate', { config: { auth: 'public' }, schema: { hide: true, querystring: CodeQuery } }, async (request, reply) =>
      sendPage(reply, 200, signInPage({ code: request.query.code })),
    );

    app.post(
      '/activate/review',
      { config: { auth: 'public' }, schema: { hide: true, body: ReviewForm } },
      async (request, reply) => {
        const { code, email } = request.body;
        try {
          const review = await reviewOnPage(ctx, request.body);
          return sendPage(reply, 200, reviewPage({ ...review, now: ctx.clock.now() }));
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          return sendPage(reply, error.status, signInPage({ code, email, message: error.message }));
        }
      },
    );

    app.post(
      '/activate/decision',
      { config: { auth: 'public' }, schema: { hide: true, body: DecisionForm } },
      async (request, reply) => {
        const holder = await ticketHolder(ctx, request.body.ticket);
        if (!holder) return sendPage(reply, 400, signInPage({ message: 'This page has expired; sign in again' }));
        try {
          await decideOnPage(ctx, holder, request.body);
          if (request.body.decision === 'deny') {
            return sendPage(reply, 200, outcomePage('Device denied', 'The device was refused. You can close this page.'));
          }
          return sendPage(
            reply,
            200,
            outcomePage('Device approved', 'Return to your device: it will receive its key within seconds.'),
          );
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          return sendPage(reply, error.status, outcomePage('Not done', error.message));
        }
      },
    );
  };
}
