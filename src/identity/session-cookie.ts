import { parseCookie, stringifySetCookie } from 'cookie';
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

/**
 * Read only here, when no other credential came: a cookie plugin would parse every
 * request's cookies, and add a hook to every answer, for the one cookie this service reads.
 */
export function sessionCookieOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  const value = parseCookie(header)[SESSION_COOKIE];
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
  const maxAge = config.authTokenTtlDays * 24 * 60 * 60;
  reply.header('set-cookie', stringifySetCookie({ name: SESSION_COOKIE, value: token, ...cookieOptions(config), maxAge }));
}

export function clearSessionCookie(reply: FastifyReply, config: Pick<Config, 'publicUrl'>) {
  const expired = { name: SESSION_COOKIE, value: '', ...cookieOptions(config), expires: new Date(0), maxAge: 0 };
  reply.header('set-cookie', stringifySetCookie(expired));
}
