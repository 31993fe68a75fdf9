import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { describe, expect } from 'vitest';
import { withServer } from '../../helpers/fixtures.js';

/** A stand-in for what `vite build` writes: a shell, one hashed asset with its .br, a manifest. */
function builtApp(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'skillet-web-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Skillet</title><div id="root"></div>');
  const script = `console.log(${JSON.stringify('x'.repeat(2000))});`;
  writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), script);
  writeFileSync(path.join(dir, 'assets', 'index-abc123.js.br'), brotliCompressSync(script));
  writeFileSync(path.join(dir, 'manifest.webmanifest'), '{"name":"Skillet"}');
  return dir;
}

const WEB_DIR = builtApp();
const it = withServer({ WEB_APP_DIR: WEB_DIR });
const unbuilt = withServer({ WEB_APP_DIR: path.join(WEB_DIR, 'missing') });

function raw(url: string, headers: Record<string, string> = {}) {
  return fetch(url, { headers, redirect: 'manual' });
}

describe('the web app pages', () => {
  it('sends a newcomer at / to /app/', async ({ server }) => {
    for (const from of ['/', '/app']) {
      const reply = await raw(`${server.url}${from}`);
      expect(reply.status).toBe(302);
      expect(reply.headers.get('location')).toBe('/app/');
    }
  });

  it('serves the shell for every screen under /app/, with a strict CSP and no caching', async ({ server }) => {
    for (const screen of ['/app/', '/app/runs/123', '/app/activate?code=ABCD-EFGH', '/app/index.html']) {
      const reply = await raw(`${server.url}${screen}`);
      expect(reply.status).toBe(200);
      expect(await reply.text()).toContain('<div id="root">');
      const csp = reply.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(reply.headers.get('cache-control')).toBe('no-cache');
      expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('serves hashed assets compressed when the client takes it, cached for good', async ({ server }) => {
    const reply = await raw(`${server.url}/app/assets/index-abc123.js`, { 'accept-encoding': 'br' });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-encoding')).toBe('br');
    expect(reply.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(reply.headers.get('content-type')).toMatch(/javascript/);
    const plain = await raw(`${server.url}/app/assets/index-abc123.js`, { 'accept-encoding': 'identity' });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect((await plain.text()).length).toBeGreaterThan(2000);
  });

  it('never serves a file outside the build, whatever the path says', async ({ server }) => {
    for (const attempt of [
      '/app/../package.json',
      '/app/%2e%2e/package.json',
      '/app/..%2fpackage.json',
      '/app/assets/../../package.json',
    ]) {
      const reply = await raw(`${server.url}${attempt}`);
      const text = await reply.text();
      expect(text).not.toContain('"name": "skillet"');
      expect(reply.status).toBeLessThan(500);
    }
    // The precompressed copies are not files of their own.
    const br = await raw(`${server.url}/app/assets/index-abc123.js.br`);
    expect(await br.text()).toContain('<div id="root">');
  });

  it('is not counted by the API rate limit', async ({ server }) => {
    const reply = await raw(`${server.url}/app/`);
    expect(reply.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('the web app pages before a build', () => {
  unbuilt('explain how to build the app instead of a 404', async ({ server }) => {
    const reply = await raw(`${server.url}/app/`);
    expect(reply.status).toBe(503);
    expect(await reply.text()).toContain('npm run build');
  });
});
