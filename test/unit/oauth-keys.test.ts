import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { oauthCookieKeys, oauthSigningKey } from '../../src/oauth/keys.js';

const SECRET = 'a'.repeat(40);

describe('OAuth keys derived from the signing secret', () => {
  it('are the same for the same secret and differ for another', () => {
    expect(oauthSigningKey(SECRET)).toEqual(oauthSigningKey(SECRET));
    expect(oauthSigningKey(SECRET).d).not.toBe(oauthSigningKey('b'.repeat(40)).d);
    expect(oauthCookieKeys(SECRET)).toEqual(oauthCookieKeys(SECRET));
    expect(oauthCookieKeys(SECRET)).not.toEqual(oauthCookieKeys('b'.repeat(40)));
    expect(oauthCookieKeys(SECRET)[0]).not.toContain(SECRET);
  });

  it('make a working Ed25519 key pair', () => {
    const jwk = oauthSigningKey(SECRET);
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
    const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
    const signature = sign(null, Buffer.from('hello'), privateKey);
    expect(verify(null, Buffer.from('hello'), publicKey, signature)).toBe(true);
  });
});
