import { describe, expect, it } from 'vitest';
import { escapeHtml, html, SafeHtml } from '../../src/http/html.js';
import { heartbeatOf, keyPreview } from '../../src/identity/api-keys.js';
import { constantTimeEqual, decrypt, deriveKey, encrypt, hashPassword, verifyPassword } from '../../src/secrets.js';

describe('sealing', () => {
  const key = deriveKey('a server secret that is long enough', 'sealing');

  it('round-trips, and every sealing differs', () => {
    const first = encrypt(key, 'sklt_live_secret');
    expect(first).not.toContain('sklt_live_secret');
    expect(encrypt(key, 'sklt_live_secret')).not.toBe(first);
    expect(decrypt(key, first)).toBe('sklt_live_secret');
  });

  it('refuses a tampered ciphertext or another key', () => {
    const sealed = encrypt(key, 'payload');
    const [iv, tag, body] = sealed.split('.');
    const flipped = Buffer.from(body ?? '', 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => decrypt(key, [iv, tag, flipped.toString('base64url')].join('.'))).toThrow();
    expect(() => decrypt(deriveKey('a server secret that is long enough', 'other'), sealed)).toThrow();
  });
});

describe('passwords', () => {
  it('verify with the right password only, and keep their cost in the hash', async () => {
    const stored = await hashPassword('correct horse', { logN: 10 });
    expect(stored).toMatch(/^scrypt\$10\$/);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('Correct horse', stored)).toBe(false);
    expect(await verifyPassword('correct horse', 'garbage')).toBe(false);
  });
});

describe('small helpers', () => {
  it('compare in constant time, including different lengths', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  });

  it('preview a key by its first 14 and last 4 characters', () => {
    expect(keyPreview(`sklt_live_${'A'.repeat(36)}WXYZ`)).toBe('sklt_live_AAAA...WXYZ');
  });

  it('derive the heartbeat from the last use', () => {
    const now = new Date('2026-05-01T12:00:00Z');
    const thresholds = { activeSeconds: 300, idleSeconds: 604_800 };
    const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();
    expect(heartbeatOf(null, now, thresholds)).toBe('DORMANT');
    expect(heartbeatOf(ago(300), now, thresholds)).toBe('ACTIVE');
    expect(heartbeatOf(ago(301), now, thresholds)).toBe('IDLE');
    expect(heartbeatOf(ago(604_800), now, thresholds)).toBe('IDLE');
    expect(heartbeatOf(ago(604_801), now, thresholds)).toBe('DORMANT');
  });

  it('escape every interpolation in html unless already safe', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    const label = '<img src=x onerror=alert(1)>';
    expect(html`<p>${label}</p>`.value).toBe('<p>&lt;img src=x onerror=alert(1)&gt;</p>');
    expect(html`<ul>${[html`<li>${'a&b'}</li>`, new SafeHtml('<li>ok</li>')]}</ul>`.value).toBe(
      '<ul><li>a&amp;b</li><li>ok</li></ul>',
    );
  });
});
