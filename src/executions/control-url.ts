import type { AppContext } from '../context.js';
import { Unauthorized } from '../errors.js';
import type { Caller, CredentialRef } from '../identity/callers.js';
import { isCredentialKind } from '../identity/credential-strategies.js';
import { constantTimeEqual, hmacHex } from '../secrets.js';

export const CONTROL_URL_LIFETIME_MS = 300_000;

function signature(ctx: AppContext, reference: string, ts: string): string {
  return hmacHex(ctx.keys.signing, `control.${reference}.${ts}`);
}

/**
 * The WebSocket URL of the caller's control channel. `c` names the credential and its
 * workspace (never its secret), and the signature binds it: the channel is the
 * credential's, not something a query parameter can choose.
 */
export function signedControlUrl(ctx: AppContext, caller: Caller): string {
  const ref: CredentialRef = { kind: caller.kind, credentialId: caller.credentialId, workspaceId: caller.workspaceId };
  const reference = Buffer.from(JSON.stringify(ref)).toString('base64url');
  const ts = String(ctx.clock.now().getTime());
  return `${ctx.config.eventsWsUrl}/events/ws?c=${reference}&ts=${ts}&sig=${signature(ctx, reference, ts)}`;
}

function parseRef(reference: string): CredentialRef | null {
  try {
    const value = JSON.parse(Buffer.from(reference, 'base64url').toString('utf8')) as Partial<CredentialRef>;
    if (!isCredentialKind(value.kind) || typeof value.credentialId !== 'string' || typeof value.workspaceId !== 'string')
      return null;
    return value as CredentialRef;
  } catch {
    return null;
  }
}

/** Checked once, at the upgrade: the signature, then its age. */
export function verifyControlUrl(ctx: AppContext, query: { c?: string; ts?: string; sig?: string }): CredentialRef {
  const { c, ts, sig } = query;
  if (!c || !ts || !sig || !/^\d{1,16}$/.test(ts) || !constantTimeEqual(sig, signature(ctx, c, ts))) {
    throw new Unauthorized('Invalid control-plane signature');
  }
  const age = ctx.clock.now().getTime() - Number(ts);
  if (age < 0 || age > CONTROL_URL_LIFETIME_MS) throw new Unauthorized('Control-plane URL expired; fetch a new one');
  const ref = parseRef(c);
  if (!ref) throw new Unauthorized('Invalid control-plane signature');
  return ref;
}
