import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { standingOfRow } from '../billing/subscription-mode.js';
import type { AppContext } from '../context.js';
import { AppError, Conflict, Expired } from '../errors.js';
import { type Caller, inWorkspace } from '../identity/callers.js';
import { checkPassword } from '../identity/users.js';
import type { UserRow } from '../identity/users.store.js';
import { findUserById } from '../identity/users.store.js';
import { listWorkspaces } from '../identity/workspaces.js';
import { confirmActivation, denyActivation, lookupActivation } from './activation.js';
import { issueTicket, readTicket } from './page-ticket.js';
import { VERIFICATION_PAGE_CSS } from './verification-page.css.js';
import { outcomePage, reviewPage, signInPage } from './verification-page.js';

const Field = Type.String({ maxLength: 1024 });
const CodeQuery = Type.Object({ code: Type.Optional(Type.String({ maxLength: 64 })) });
const ReviewForm = Type.Object({ code: Field, email: Field, password: Field });
const DecisionForm = Type.Object({
  ticket: Field,
  workspace: Type.String({ maxLength: 100 }),
  decision: Type.Union([Type.Literal('approve'), Type.Literal('deny')]),
});

const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

function sendPage(reply: FastifyReply, status: number, page: string): FastifyReply {
  return reply.status(status).headers(SECURITY_HEADERS).type('text/html; charset=utf-8').send(page);
}

/** The page acts as the person who signed in on it, in their personal workspace. */
function pageCaller(user: UserRow): Caller {
  return {
    kind: 'session',
    credentialId: `page:${user.id}`,
    userId: user.id,
    email: user.email,
    isAdmin: user.is_admin === 1,
    userCreatedAt: user.created_at,
    personalWorkspaceId: user.personal_workspace_id,
    workspaceId: user.personal_workspace_id,
    workspaceName: null,
    workspacePersonal: true,
    role: 'owner',
    billing: standingOfRow(user),
  };
}

/** `/activate`: where a person signs in, checks the code and approves or denies the device. */
export function verificationPageRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/activate/style.css', { config: { auth: 'public' }, schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(VERIFICATION_PAGE_CSS),
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
          const user = await checkPassword(ctx, email, request.body.password);
          const caller = pageCaller(user);
          const details = await lookupActivation(ctx, caller, code);
          if (details.status === 'expired') throw new Expired('This code has expired; start again on your device');
          if (details.status !== 'pending') throw new Conflict(`This code is already ${details.status}`);
          const ticket = issueTicket(ctx, user.id, details.user_code, details.expires_at);
          const workspaces = await listWorkspaces(ctx, caller);
          return sendPage(reply, 200, reviewPage({ details, ticket, workspaces, now: ctx.clock.now() }));
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
        const ticket = readTicket(ctx, request.body.ticket);
        const user = ticket ? await findUserById(ctx.db, ticket.userId) : undefined;
        if (!ticket || !user) {
          return sendPage(reply, 400, signInPage({ message: 'This page has expired; sign in again' }));
        }
        try {
          const caller = pageCaller(user);
          if (request.body.decision === 'deny') {
            await denyActivation(ctx, caller, ticket.userCode);
            return sendPage(reply, 200, outcomePage('Device denied', 'The device was refused. You can close this page.'));
          }
          const acting = await inWorkspace(ctx, caller, request.body.workspace);
          await confirmActivation(ctx, acting, ticket.userCode, acting.workspaceId);
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
