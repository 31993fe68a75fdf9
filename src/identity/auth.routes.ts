import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { callerOf } from '../http/credentials.js';
import { Success } from '../http/schemas.js';
import { LogInBody, MeSchema, SignedInSchema, SignUpBody } from './auth.schemas.js';
import { revokeAuthToken } from './auth-tokens.js';
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

    app.get('/me', { config: { auth: 'user' }, schema: { response: { 200: MeSchema } } }, async (request) =>
      profileOf(callerOf(request), ctx.clock.now()),
    );
  };
}
