import { describe, expect } from 'vitest';
import { PREVIEW_LINK_LIFETIME_MS } from '../../../src/artifacts/preview-links.js';
import { runForArtifact } from '../../helpers/artifacts.js';
import { session, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';

const it = withServer();

describe('previewing a bundle in a sandboxed frame', () => {
  it('serves the page and, with no cookie, the styles it links to, under a signed base that expires', async ({ api, server }) => {
    const owner = await signUp(api);
    const { artifactId } = await runForArtifact(api, owner, 'markdown-to-html', '# Styled');
    const link = await api.get<{ url: string; expiresAt: string }>(`/api/v1/artifacts/${artifactId}/preview-link`, {
      headers: session(owner),
    });
    expect(link.status).toBe(200);
    expect(link.body.url).toMatch(new RegExp(`^${server.config.publicUrl}/api/v1/previews/${artifactId}/\\d+\\.[0-9a-f]{64}/$`));

    // What the frame asks for, with no credential but the link: the page, then its relative style sheet.
    const page = await fetch(`${link.body.url}index.html`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain('sandbox');
    const html = await page.text();
    expect(html).toContain('Styled');
    const stylesheet = /href="([^"]+\.css)"/.exec(html)?.[1] as string;
    const css = await fetch(new URL(stylesheet, `${link.body.url}index.html`));
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css');
    expect((await fetch(`${link.body.url}../../etc/passwd`)).status).toBe(404);

    // A forged signature, another artifact's link, and a link past its hour open nothing.
    const forged = link.body.url.replace(/\.[0-9a-f]{64}\/$/, `.${'0'.repeat(64)}/`);
    expect((await fetch(`${forged}index.html`)).status).toBe(404);
    const other = await runForArtifact(api, owner, 'markdown-to-html', '# Other');
    expect((await fetch(`${link.body.url.replace(artifactId, other.artifactId)}index.html`)).status).toBe(404);
    server.clock.advance(PREVIEW_LINK_LIFETIME_MS + 1);
    const late = await fetch(`${link.body.url}index.html`);
    expect(late.status).toBe(410);
    expect(await late.json()).toEqual({
      error: { code: 'EXPIRED', message: 'This preview link has expired. Open the artifact again to see it.' },
    });
  });

  it('gives no link for another workspace’s artifact', async ({ api }) => {
    const owner = await signUp(api);
    const stranger = await signUp(api);
    const { artifactId } = await runForArtifact(api, owner, 'markdown-to-html', '# Mine');
    const refused = await api.get(`/api/v1/artifacts/${artifactId}/preview-link`, { headers: session(stranger) });
    expect(refused.status).toBe(404);
  });
});
