import type { AppContext } from '../context.js';
import { Unauthorized } from '../errors.js';
import type { CredentialRef } from '../identity/callers.js';
import { isCredentialKind } from '../identity/credential-strategies.js';
import type { Caller } from '../ports/callers.js';
import { checkTimedSignature, signValue } from '../signed-values.js';

export const CONTROL_URL_LIFETIME_MS = 300_000;
/** Where the control channel's WebSocket is; the only address of the API that takes an upgrade. */
export const CONTROL_SOCKET_PATH = '/events/ws';
const PURPOSE = 'control';

/**
 * The WebSocket URL of the caller's control channel. `c` names the credential and its
 * workspace (never its secret), and the signature binds it: the channel is the
 * credential's, not something a query parameter can choose.
 */
export function signedControlUrl(ctx: Pick<AppContext, 'keys' | 'clock' | 'config'>, caller: Caller): string {
  const ref: CredentialRef = { kind: caller.kind, credentialId: caller.credentialId, workspaceId: caller.workspaceId };
  const reference = Buffer.from(JSON.stringify(ref)).toString('base64url');
  const ts = String(ctx.clock.nowMs());
  const sig = signValue(ctx.keys.signing, PURPOSE, [reference, ts]);
  return `${ctx.config.eventsWsUrl}${CONTROL_SOCKET_PATH}?c=${reference}&ts=${ts}&sig=${sig}`;
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
export function verifyControlUrl(
  ctx: Pick<AppContext, 'keys' | 'clock'>,
  query: { c?: string; ts?: string; sig?: string },
): CredentialRef {
  const reference = query.c ?? '';
  const signed = { subject: reference, ts: query.ts, sig: query.sig };
  const check = checkTimedSignature(ctx.keys.signing, PURPOSE, signed, ctx.clock.nowMs(), CONTROL_URL_LIFETIME_MS);
  if (check === 'invalid') throw new Unauthorized('Invalid control-plane signature');
  if (check === 'expired') throw new Unauthorized('Control-plane URL expired; fetch a new one');
  const ref = parseRef(reference);
  if (!ref) throw new Unauthorized('Invalid control-plane signature');
  return ref;
}
