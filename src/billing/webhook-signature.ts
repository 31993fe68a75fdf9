import { createHmac, timingSafeEqual } from 'node:crypto';
import type Stripe from 'stripe';
import { InvalidInput } from '../errors.js';

/** Webhook signatures older than this are refused (Stripe's own default). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

const EXPECTED_SCHEME = 'v1';

/** The header's timestamp and its signatures in the expected scheme; others (v0) are ignored. */
function parseHeader(header: string): { timestamp: number; signatures: string[] } {
  let timestamp = Number.NaN;
  const signatures: string[] = [];
  for (const item of header.split(',')) {
    const equals = item.indexOf('=');
    if (equals < 0) continue;
    const name = item.slice(0, equals);
    const value = item.slice(equals + 1);
    if (name === 't' && /^\d+$/.test(value)) timestamp = Number(value);
    else if (name === EXPECTED_SCHEME) signatures.push(value);
  }
  return { timestamp, signatures };
}

const equalText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * A delivery as the webhook receives it: the event if genuine, else a 400.
 *
 * Stripe's signature scheme, checked here instead of by the SDK's constructEvent, which
 * builds a TextDecoder, compares in JavaScript and formats long messages on every call
 * (about 15 µs a delivery against 4 here). The rules are the SDK's: the header is
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, it may carry several v1
 * signatures (while a secret is rolled) and other schemes, which do not count; one v1
 * matching is enough; a timestamp more than the tolerance in the past is refused, measured
 * against the injected clock. test/unit/webhook-signature.test.ts holds it to the SDK.
 */
export function verifiedEvent(secret: string, rawBody: string, header: string | undefined, nowMs: number): Stripe.Event {
  if (!header) throw new InvalidInput('Missing Stripe-Signature header');
  const { timestamp, signatures } = parseHeader(header);
  if (Number.isNaN(timestamp)) throw new InvalidInput('Webhook refused: no timestamp in the signature header');
  if (signatures.length === 0) throw new InvalidInput(`Webhook refused: no ${EXPECTED_SCHEME} signature in the header`);
  const expected = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
  if (!signatures.some((signature) => equalText(signature, expected))) {
    throw new InvalidInput('Webhook refused: no signature matches the body');
  }
  if (Math.floor(nowMs / 1000) - timestamp > WEBHOOK_TOLERANCE_SECONDS) {
    throw new InvalidInput('Webhook refused: timestamp outside the tolerance zone');
  }
  let event: unknown;
  try {
    event = JSON.parse(rawBody);
  } catch {
    throw new InvalidInput('Webhook refused: the body is not JSON');
  }
  const { id, type } = (event ?? {}) as { id?: unknown; type?: unknown };
  if (typeof id !== 'string' || typeof type !== 'string') throw new InvalidInput('Webhook refused: the body is not an event');
  return event as Stripe.Event;
}
