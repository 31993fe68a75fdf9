import { constantTimeEqual, hmacHex } from './secrets.js';

/**
 * The one signer behind every value the server hands out and later takes back on trust:
 * stream URLs, control-plane URLs and the verification page's ticket. The purpose is the
 * first part of what is signed, so a signature made for one never passes as another.
 */
export function signValue(key: Buffer, purpose: string, parts: string[]): string {
  return hmacHex(key, [purpose, ...parts].join('.'));
}

export function signatureMatches(key: Buffer, purpose: string, parts: string[], signature: string): boolean {
  return constantTimeEqual(signature, signValue(key, purpose, parts));
}

export type TimedCheck = 'valid' | 'invalid' | 'expired';

/**
 * A signature over `subject` and the time `ts` it was issued (milliseconds, as text),
 * checked first and in constant time; only a genuine one is then judged by its age.
 */
export function checkTimedSignature(
  key: Buffer,
  purpose: string,
  signed: { subject: string; ts: string | undefined; sig: string | undefined },
  now: number,
  lifetimeMs: number,
): TimedCheck {
  const { subject, ts, sig } = signed;
  if (!ts || !sig || !/^\d{1,16}$/.test(ts) || !signatureMatches(key, purpose, [subject, ts], sig)) return 'invalid';
  const age = now - Number(ts);
  return age < 0 || age > lifetimeMs ? 'expired' : 'valid';
}
