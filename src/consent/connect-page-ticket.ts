import type { AppContext } from '../context.js';
import { signatureMatches, signValue } from '../signed-values.js';

const PURPOSE = 'agent-connect-page';

/**
 * Like the activation page's ticket: between "sign in" and "approve or deny" the page
 * carries this instead of a session. It binds one person to one request until the
 * request's expiry and cannot be forged, so a cross-site post cannot decide for them.
 */
export function issueConnectTicket(ctx: Pick<AppContext, 'keys'>, userId: string, requestId: string, expiresAt: string): string {
  const parts = [userId, requestId, String(Date.parse(expiresAt))];
  return [...parts, signValue(ctx.keys.signing, PURPOSE, parts)].join('.');
}

export function readConnectTicket(
  ctx: Pick<AppContext, 'keys' | 'clock'>,
  ticket: string,
): { userId: string; requestId: string } | null {
  const [userId, requestId, expiresMs, signature, ...rest] = ticket.split('.');
  if (!userId || !requestId || !expiresMs || !signature || rest.length > 0) return null;
  if (!signatureMatches(ctx.keys.signing, PURPOSE, [userId, requestId, expiresMs], signature)) return null;
  if (Number(expiresMs) <= ctx.clock.nowMs()) return null;
  return { userId, requestId };
}
