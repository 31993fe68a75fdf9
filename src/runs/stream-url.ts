import type { AppContext } from '../context.js';
import { Unauthorized } from '../errors.js';
import { checkTimedSignature, signValue } from '../signed-values.js';

const STREAM_URL_LIFETIME_MS = 5 * 60_000;
const PURPOSE = 'stream';

type SigningParts = Pick<AppContext, 'keys' | 'clock'>;

/** A short-lived URL that opens one execution's stream with no other credential. */
export function signedStreamUrl(ctx: SigningParts & Pick<AppContext, 'config'>, executionId: string): string {
  const ts = String(ctx.clock.nowMs());
  const sig = signValue(ctx.keys.signing, PURPOSE, [executionId, ts]);
  return `${ctx.config.streamUrl}/executions/${executionId}/stream?ts=${ts}&sig=${sig}`;
}

/** Checked before anything else about a stream request: the signature, then its age. */
export function verifyStreamSignature(
  ctx: SigningParts,
  executionId: string,
  ts: string | undefined,
  sig: string | undefined,
): void {
  const now = ctx.clock.nowMs();
  const check = checkTimedSignature(ctx.keys.signing, PURPOSE, { subject: executionId, ts, sig }, now, STREAM_URL_LIFETIME_MS);
  if (check === 'invalid') throw new Unauthorized('Invalid stream signature');
  if (check === 'expired') throw new Unauthorized('Stream URL expired; fetch a new one');
}
