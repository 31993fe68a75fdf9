import type { AppContext } from '../context.js';
import { Unauthorized } from '../errors.js';
import { constantTimeEqual, hmacHex } from '../secrets.js';

const STREAM_URL_LIFETIME_MS = 5 * 60_000;

function signature(ctx: AppContext, executionId: string, ts: string): string {
  return hmacHex(ctx.keys.signing, `stream.${executionId}.${ts}`);
}

/** A short-lived URL that opens one execution's stream with no other credential. */
export function signedStreamUrl(ctx: AppContext, executionId: string): string {
  const ts = String(ctx.clock.now().getTime());
  return `${ctx.config.streamUrl}/executions/${executionId}/stream?ts=${ts}&sig=${signature(ctx, executionId, ts)}`;
}

/** Checked before anything else about a stream request: the signature, then its age. */
export function verifyStreamSignature(
  ctx: AppContext,
  executionId: string,
  ts: string | undefined,
  sig: string | undefined,
): void {
  if (!ts || !sig || !/^\d{1,16}$/.test(ts) || !constantTimeEqual(sig, signature(ctx, executionId, ts))) {
    throw new Unauthorized('Invalid stream signature');
  }
  const age = ctx.clock.now().getTime() - Number(ts);
  if (age < 0 || age > STREAM_URL_LIFETIME_MS) throw new Unauthorized('Stream URL expired; fetch a new one');
}
