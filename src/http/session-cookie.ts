import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

/**
 * The web app's session rides in an httpOnly cookie holding the session's auth token, so
 * page script never sees it. SameSite=Strict keeps other sites' pages from sending it, and
 * a state-changing request must also carry APP_REQUEST_HEADER, which a cross-site page
 * cannot add without a CORS preflight this service never grants.
 */
export const SESSION_COOKIE = 'skillet_session';
export const APP_REQUEST_HEADER = 'x-skillet-app';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function sessionCookieOf(request: FastifyRequest): string | undefined {
  const value = request.cookies?.[SESSION_COOKIE];
  return value === undefined || value === '' ? undefined : value;
}

/** Whether a request sent with the session cookie may act on it (CSRF). */
export function cookieRequestAllowed(request: FastifyRequest): boolean {
  return SAFE_METHODS.has(request.method) || request.headers[APP_REQUEST_HEADER] === '1';
}

function cookieOptions(config: Pick<Config, 'publicUrl'>) {
  return {
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: config.publicUrl.startsWith('https:'),
    path: '/',
  };
}

export function setSessionCookie(reply: FastifyReply, config: Pick<Config, 'publicUrl' | 'authTokenTtlDays'>, token: string) {
  reply.setCookie(SESSION_COOKIE, token, { ...cookieOptions(config), maxAge: config.authTokenTtlDays * 24 * 60 * 60 });
}

export function clearSessionCookie(reply: FastifyReply, config: Pick<Config, 'publicUrl'>) {
  reply.clearCookie(SESSION_COOKIE, cookieOptions(config));
}
