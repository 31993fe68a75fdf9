import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { IdParams } from '../http/schemas.js';
import { Success } from '../sdk/schemas/common.js';
import { MeSchema, SignedInSchema } from '../sdk/schemas/identity.js';
import { changePassword, endSession, listSessions, mailResetLink, resetPassword } from './account.js';
import {
  ChangePasswordBody,
  LogInBody,
  PasswordChanged,
  ResetPasswordBody,
  ResetRequestBody,
  SessionList,
  SignUpBody,
} from './auth.schemas.js';
import { revokeAuthToken } from './auth-tokens.js';
import { callerOf } from './credentials.js';
import { profileOf } from './profile.js';
import { logIn, signUp } from './users.js';

export function authRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/auth/signup',
      { config: { auth: 'public' }, schema: { body: SignUpBody, response: { 201: SignedInSchema } } },
      async (request, reply) => reply.status(201).send(await signUp(ctx, request.body)),
    );

    app.post(
      '/auth/login',
      { config: { auth: 'public' }, schema: { body: LogInBody, response: { 200: SignedInSchema } } },
      async (request) => logIn(ctx, request.body.email, request.body.password),
    );

    app.post('/auth/logout', { config: { auth: 'session' }, schema: { response: { 200: Success } } }, async (request) => {
      await revokeAuthToken(ctx, callerOf(request).credentialId);
      return { success: true as const };
    });

    app.put(
      '/auth/password',
      { config: { auth: 'session' }, schema: { body: ChangePasswordBody, response: { 200: PasswordChanged } } },
      async (request) => ({ success: true as const, ...(await changePassword(ctx, callerOf(request), request.body)) }),
    );

    app.post(
      '/auth/password-reset',
      { config: { auth: 'public' }, schema: { body: ResetPasswordBody, response: { 200: Success } } },
      async (request) => {
        await resetPassword(ctx, request.body);
        return { success: true as const };
      },
    );

    app.post(
      '/auth/password-reset/request',
      { config: { auth: 'public' }, schema: { body: ResetRequestBody, response: { 202: Success } } },
      async (request, reply) => {
        await mailResetLink(ctx, request.body.email);
        return reply.status(202).send({ success: true as const });
      },
    );

    app.get('/auth/sessions', { config: { auth: 'session' }, schema: { response: { 200: SessionList } } }, async (request) => ({
      sessions: await listSessions(ctx, callerOf(request)),
    }));

    app.delete(
      '/auth/sessions/:id',
      { config: { auth: 'session' }, schema: { params: IdParams, response: { 200: Success } } },
      async (request) => {
        await endSession(ctx, callerOf(request), request.params.id);
        return { success: true as const };
      },
    );

    app.get('/me', { config: { auth: 'user' }, schema: { response: { 200: MeSchema } } }, async (request) =>
      profileOf(callerOf(request), ctx.clock.nowMs()),
    );
  };
}
