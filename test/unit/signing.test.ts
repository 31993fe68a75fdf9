import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newMessageId, newWebhookSecret, signedHeaders } from '../../src/webhooks/signing.js';

describe('Standard Webhooks signing', () => {
  it('signs what the standardwebhooks package verifies, and its own signature matches ours', () => {
    const secret = newWebhookSecret();
    const id = newMessageId();
    const at = new Date();
    const body = JSON.stringify({ type: 'execution.completed', timestamp: at.toISOString(), data: { ü: 'ß' } });
    const headers = signedHeaders([secret], id, at, body);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(headers['webhook-signature']).toBe(new Webhook(secret).sign(id, at, body));
  });

  it('signs with every secret of a rotation, and a verifier holding either one accepts', () => {
    const [old, current, stranger] = [newWebhookSecret(), newWebhookSecret(), newWebhookSecret()];
    const at = new Date();
    const body = '{"type":"webhook.test"}';
    const headers = signedHeaders([current, old], newMessageId(), at, body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [old, current]) expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(stranger).verify(body, { ...headers })).toThrow();
  });

  it('makes secrets of 32 random bytes and message ids that differ every time', () => {
    const secrets = new Set(Array.from({ length: 100 }, newWebhookSecret));
    expect(secrets.size).toBe(100);
    for (const secret of secrets) expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(new Set(Array.from({ length: 100 }, newMessageId)).size).toBe(100);
  });
});
