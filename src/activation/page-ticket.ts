import type { AppContext } from '../context.js';
import { signatureMatches, signValue } from '../signed-values.js';

const PURPOSE = 'activation-page';

/**
 * Between "sign in and review" and "approve or deny", the page carries a ticket instead of
 * a session: it binds one person to one code until the code's own expiry, and cannot be
 * forged without the server secret, so the decision form is safe from cross-site posts.
 */
export function issueTicket(ctx: Pick<AppContext, 'keys'>, userId: string, userCode: string, expiresAt: string): string {
  const parts = [userId, userCode, String(Date.parse(expiresAt))];
  return [...parts, signValue(ctx.keys.signing, PURPOSE, parts)].join('.');
}

export function readTicket(ctx: Pick<AppContext, 'keys' | 'clock'>, ticket: string): { userId: string; userCode: string } | null {
  const [userId, userCode, expiresMs, signature] = ticket.split('.');
  if (!userId || !userCode || !expiresMs || !signature) return null;
  if (!signatureMatches(ctx.keys.signing, PURPOSE, [userId, userCode, expiresMs], signature)) return null;
  if (Number(expiresMs) <= ctx.clock.nowMs()) return null;
  return { userId, userCode };
}
