import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { isPublicAddress, publicAddressesOf } from '../../src/webhooks/address-guard.js';
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

describe('where a webhook may go', () => {
  it.each([
    ['8.8.8.8', true],
    ['93.184.215.14', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
    ['127.0.0.1', false],
    ['127.255.255.254', false],
    ['10.0.0.1', false],
    ['172.31.255.255', false],
    ['192.168.0.1', false],
    ['169.254.169.254', false],
    ['100.100.100.200', false],
    ['0.0.0.0', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['::', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['::127.0.0.1', false],
    ['64:ff9b::a00:1', false],
    ['2002:a00:1::', false],
    ['fd12:3456::1', false],
    ['fe80::1', false],
    ['ff02::1', false],
    ['not an address', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it('refuses a host when any address it resolves to is not public (a rebinding answer included)', async () => {
    const answers = [
      [{ address: '93.184.215.14', family: 4 }],
      [
        { address: '93.184.215.14', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
    ];
    let call = 0;
    const resolve = async () => answers[call++] ?? [];
    await expect(publicAddressesOf('hooks.example', resolve)).resolves.toHaveLength(1);
    await expect(publicAddressesOf('hooks.example', resolve)).rejects.toThrow(
      'hooks.example is not a public address (127.0.0.1)',
    );
    await expect(publicAddressesOf('hooks.example', resolve)).rejects.toThrow('not a public address');
  });
});
