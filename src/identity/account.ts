import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import { Forbidden, InvalidInput, NotFound, ServiceUnavailable, Unauthorized } from '../errors.js';
import type { Caller } from '../ports/callers.js';
import { announceRevocation } from '../realtime/control-messages.js';
import { hashPassword, randomString, sha256Hex } from '../secrets.js';
import {
  insertPasswordReset,
  liveSessions,
  revokeSessionOf,
  revokeSessionsOf,
  setPasswordHash,
  useResetToken,
} from './account.store.js';
import { requireSignedInPerson } from './callers.js';
import { checkPassword, normalizeEmail, PASSWORD_MIN_LENGTH } from './users.js';
import { findUserByEmail } from './users.store.js';

type AccountContext = Pick<AppContext, 'db' | 'clock' | 'config' | 'rateLimits' | 'credentials' | 'control'>;

/** A key or an OAuth token acts in a workspace; it does not manage the person's account. */
const ACCOUNT_IS_PERSONAL = 'Only you, signed in to the app, can manage your password and sessions.';

/** How long a reset link made by an operator works. */
export const RESET_LINK_TTL_MS = 60 * 60 * 1000;
const RESET_TOKEN_PREFIX = 'sklt_reset_';

export interface SessionView {
  id: string;
  workspaceId: string;
  createdAt: string;
  expiresAt: string;
  /** The session this request came with. */
  current: boolean;
}

function requireStrongEnough(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH) {
    throw new InvalidInput(`Choose a password of at least ${PASSWORD_MIN_LENGTH} characters.`);
  }
}

/** Revoked sessions are forgotten by this node's cache and announced, so their sockets close everywhere. */
function ended(ctx: Pick<AppContext, 'credentials' | 'control' | 'clock'>, sessionIds: string[]): void {
  for (const id of sessionIds) {
    ctx.credentials.forget(id);
    announceRevocation(ctx, id);
  }
}

/**
 * A new password, given the current one (held to the same failure limit as signing in).
 * Every other session of the person ends: whoever knew the old password is signed out.
 * API keys stay: they are revoked one by one, under API keys.
 */
export async function changePassword(
  ctx: AccountContext,
  caller: Caller,
  change: { currentPassword: string; newPassword: string },
): Promise<{ endedSessions: number }> {
  requireSignedInPerson(caller, ACCOUNT_IS_PERSONAL);
  requireStrongEnough(change.newPassword);
  try {
    await checkPassword(ctx, caller.email, change.currentPassword);
  } catch (error) {
    // Not a 401: the person is signed in, and a 401 would sign the app out.
    if (error instanceof Unauthorized) throw new Forbidden('That is not your current password. Try again.');
    throw error;
  }
  await setPasswordHash(ctx.db, caller.userId, await hashPassword(change.newPassword, { logN: ctx.config.passwordHashLogN }));
  const revoked = await revokeSessionsOf(ctx.db, caller.userId, ctx.clock.now().toISOString(), caller.credentialId);
  ended(ctx, revoked);
  return { endedSessions: revoked.length };
}

export async function listSessions(ctx: Pick<AppContext, 'db' | 'clock'>, caller: Caller): Promise<SessionView[]> {
  requireSignedInPerson(caller, ACCOUNT_IS_PERSONAL);
  const rows = await liveSessions(ctx.db, caller.userId, ctx.clock.now().toISOString());
  return rows.map((row) => ({
    id: row.id,
    workspaceId: row.active_workspace_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    current: row.id === caller.credentialId,
  }));
}

/** Signs one of the person's sessions out; another person's session is not found. */
export async function endSession(ctx: AccountContext, caller: Caller, sessionId: string): Promise<void> {
  requireSignedInPerson(caller, ACCOUNT_IS_PERSONAL);
  if (!(await revokeSessionOf(ctx.db, caller.userId, sessionId, ctx.clock.now().toISOString()))) {
    throw new NotFound('There is no such session of yours, or it has ended already.');
  }
  ended(ctx, [sessionId]);
}

/**
 * A one-time link to choose a new password, for an operator to hand to the person (the
 * server sends no mail). Only the token's hash is stored.
 */
export async function makeResetLink(
  ctx: Pick<AppContext, 'db' | 'clock' | 'config'>,
  email: string,
): Promise<{ url: string; expiresAt: string }> {
  const user = await findUserByEmail(ctx.db, normalizeEmail(email));
  if (!user) throw new NotFound(`There is no account with the email ${email}.`);
  const token = RESET_TOKEN_PREFIX + randomString(40);
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + RESET_LINK_TTL_MS).toISOString();
  await insertPasswordReset(ctx.db, {
    id: randomUUID(),
    userId: user.id,
    tokenHash: sha256Hex(token),
    createdAt: now.toISOString(),
    expiresAt,
  });
  return { url: `${ctx.config.publicUrl}/app/reset-password#token=${token}`, expiresAt };
}

/** Sets a new password through a reset link, used once; every session of the person ends. */
export async function resetPassword(ctx: AccountContext, reset: { token: string; newPassword: string }): Promise<void> {
  requireStrongEnough(reset.newPassword);
  const nowIso = ctx.clock.now().toISOString();
  const userId = await useResetToken(ctx.db, sha256Hex(reset.token), nowIso);
  if (!userId) {
    throw new InvalidInput('This reset link has been used or has expired. Ask for a new one.');
  }
  await setPasswordHash(ctx.db, userId, await hashPassword(reset.newPassword, { logN: ctx.config.passwordHashLogN }));
  ended(ctx, await revokeSessionsOf(ctx.db, userId, nowIso));
  ctx.credentials.forgetUser(userId);
}

/** At most this many reset mails to one address an hour, however many addresses ask. */
const RESET_MAILS_PER_HOUR = 3;

function resetMailText(url: string): string {
  return [
    'Someone asked to reset the password of your Skillet account.',
    '',
    `Choose a new password here (the link works once, for an hour): ${url}`,
    '',
    'If it was not you, ignore this mail: your password stays as it is.',
  ].join('\n');
}

/**
 * A person who forgot their password asks for a link by mail. The answer is the same
 * whether or not the address has an account, and the mail goes out after the answer, so
 * neither the words nor the time tell who has one.
 */
export async function mailResetLink(
  ctx: Pick<AppContext, 'db' | 'clock' | 'config' | 'rateLimits' | 'mailer' | 'log'>,
  email: string,
): Promise<void> {
  const mailer = ctx.mailer;
  if (!mailer) {
    throw new ServiceUnavailable('This server does not send email. Ask whoever runs it for a password reset link.');
  }
  const address = normalizeEmail(email);
  const allowed = await ctx.rateLimits.consume(
    `reset-mails:${sha256Hex(address)}`,
    { kind: 'window', limit: RESET_MAILS_PER_HOUR, windowMs: RESET_LINK_TTL_MS },
    ctx.clock.nowMs(),
  );
  if (!allowed.allowed || !(await findUserByEmail(ctx.db, address))) return;
  const sent = async () => {
    const { url } = await makeResetLink(ctx, address);
    await mailer.send({ to: address, subject: 'Reset your Skillet password', text: resetMailText(url) });
  };
  void sent().catch((error: unknown) => ctx.log.error({ err: error }, 'a password reset mail could not be sent'));
}
