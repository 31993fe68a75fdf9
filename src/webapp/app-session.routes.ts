import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { Forbidden } from '../errors.js';
import { LogInBody, SignUpBody } from '../identity/auth.schemas.js';
import { callerFromAuthToken, revokeAuthToken } from '../identity/auth-tokens.js';
import { profileOf } from '../identity/profile.js';
import {
  APP_REQUEST_HEADER,
  clearSessionCookie,
  cookieRequestAllowed,
  sessionCookieOf,
  setSessionCookie,
} from '../identity/session-cookie.js';
import { logIn, signUp } from '../identity/users.js';
import { Success } from '../sdk/schemas/common.js';
import { AppSessionSchema, AppSignedInSchema } from './app-session.schemas.js';

/**
 * Sign-in, sign-up and sign-out for the web app: the same accounts and sessions as
 * /auth/*, with the token set as an httpOnly cookie instead of returned.
 */
export function appSessionRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addHook('onRequest', async (request) => {
      if (!cookieRequestAllowed(request)) throw new Forbidden(`The app's requests carry the ${APP_REQUEST_HEADER} header`);
    });

    app.get(
      '/app/session',
      { config: { auth: 'public' }, schema: { hide: true, response: { 200: AppSessionSchema } } },
      async (request) => {
        const token = sessionCookieOf(request);
        const caller = token === undefined ? null : await callerFromAuthToken(ctx, token);
        return { me: caller ? profileOf(caller, ctx.clock.nowMs()) : null, mailsResetLinks: ctx.mailer !== undefined };
      },
    );

    app.post(
      '/app/signup',
      { config: { auth: 'public' }, schema: { hide: true, body: SignUpBody, response: { 201: AppSignedInSchema } } },
      async (request, reply) => {
        const { token, user } = await signUp(ctx, request.body);
        setSessionCookie(reply, ctx.config, token);
        return reply.status(201).send({ user });
      },
    );

    app.post(
      '/app/login',
      { config: { auth: 'public' }, schema: { hide: true, body: LogInBody, response: { 200: AppSignedInSchema } } },
      async (request, reply) => {
        const { token, user } = await logIn(ctx, request.body.email, request.body.password);
        setSessionCookie(reply, ctx.config, token);
        return { user };
      },
    );

    // Public, so a cookie whose session already ended is still cleared.
    app.post(
      '/app/logout',
      { config: { auth: 'public' }, schema: { hide: true, response: { 200: Success } } },
      async (request, reply) => {
        const token = sessionCookieOf(request);
        const caller = token === undefined ? null : await callerFromAuthToken(ctx, token);
        if (caller) await revokeAuthToken(ctx, caller.credentialId);
        clearSessionCookie(reply, ctx.config);
        return { success: true as const };
      },
    );
  };
}
