import { createPrivateKey, type JsonWebKey } from 'node:crypto';
import { deriveKey } from '../secrets.js';

/** The fixed PKCS#8 prefix of an Ed25519 private key; the 32 bytes after it are the seed. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * The authorization server's signing key (its JWKS), derived from the signing secret: the
 * same on every start and every node of a cluster, with nothing more to store, and
 * rotated with the secret. Ed25519 because a 32-byte seed is all such a key is.
 */
export function oauthSigningKey(signingSecret: string): JsonWebKey {
  const seed = deriveKey(signingSecret, 'oauth-signing-key');
  const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  return { ...key.export({ format: 'jwk' }), use: 'sig', alg: 'EdDSA', kid: 'skillet-oauth-1' };
}

/** The keys oidc-provider signs its cookies with, derived the same way. */
export function oauthCookieKeys(signingSecret: string): string[] {
  return [deriveKey(signingSecret, 'oauth-cookies').toString('base64url')];
}
