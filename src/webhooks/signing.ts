import { createHmac, randomBytes } from 'node:crypto';
import { randomString } from '../secrets.js';

/**
 * Standard Webhooks signing: a secret is `whsec_` and base64 of random bytes; each attempt
 * signs `<webhook-id>.<webhook-timestamp>.<body>` with HMAC-SHA256 under the decoded secret
 * and sends `v1,<base64 signature>`. Receivers verify with any Standard Webhooks library.
 */
const SECRET_PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** A message id: the same on every attempt and redelivery, so receivers can drop repeats. */
export function newMessageId(): string {
  return `msg_${randomString(27)}`;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * The headers of one attempt, signed with each secret given: during a rotation the old
 * and the new secret both sign, space-separated, so a receiver that still has the old one
 * keeps verifying until it switches.
 */
export function signedHeaders(secrets: string[], messageId: string, at: Date, body: string): SignedHeaders {
  const timestamp = Math.floor(at.getTime() / 1000).toString();
  const signatures = secrets.map((secret) => {
    const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
    return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
  });
  return { 'webhook-id': messageId, 'webhook-timestamp': timestamp, 'webhook-signature': signatures.join(' ') };
}
