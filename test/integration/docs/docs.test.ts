import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect } from 'vitest';
import { createKey, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';

const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000' });
const run = promisify(execFile);

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescaped = (text: string) => text.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity);

/** The page's examples of one language, as a reader would copy them. */
function examples(page: string, language: string): string[] {
  const blocks = page.matchAll(new RegExp(`<pre tabindex="0" data-language="${language}"><code>([\\s\\S]*?)</code></pre>`, 'g'));
  return [...blocks].map((block) => unescaped(block[1] as string));
}

describe('the docs', () => {
  it('serves the getting-started guide at /docs, in HTML, with every section a newcomer needs', async ({ api, server }) => {
    for (const address of ['/docs', '/docs/']) {
      const page = await api.get<string>(address);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      for (const heading of [
        'Getting started',
        'Get an API key',
        'A first run',
        'Streaming a run',
        'Errors',
        'Ds: what runs cost',
        'One run at a time in a workspace',
      ]) {
        expect(page.text).toMatch(new RegExp(`<h[12] id="[a-z-]+">${heading}</h[12]>`));
      }
      // The examples name this server, so they can be copied as they are.
      expect(page.text).toContain(`${server.url}/api/v1/executions`);
      expect(page.text).not.toContain('{{SERVER}}');
      for (const link of ['/docs/api/', '/docs/writing-skills', '/app/']) expect(page.text).toContain(`href="${link}"`);
      expect(page.text).toContain('<link rel="stylesheet" href="/activate/style.css">');
    }
  });

  it('serves the guide to writing a skill, and the reference links back to the guide', async ({ api }) => {
    const guide = await api.get<string>('/docs/writing-skills');
    expect(guide.status).toBe(200);
    for (const heading of ['Writing a skill', 'SKILL.md', 'Script skills', 'Agent skills', 'The input contract', 'Files']) {
      expect(guide.text).toContain(`>${heading}</h`);
    }
    expect(guide.text).toContain('Outputs and artifacts');
    expect(guide.text).toContain('skillet skills init my-skill');

    const reference = await api.get<{ info: { description: string } }>('/openapi.json');
    expect(reference.body.info.description).toContain('[Getting started](/docs)');
    expect(reference.body.info.description).toContain('## Authentication');
    for (const credential of ['x-api-key', 'x-auth-token', 'Authorization: Bearer']) {
      expect(reference.body.info.description).toContain(credential);
    }
  });

  it('answers an unknown docs page with a 404 page in words, not JSON', async ({ api }) => {
    for (const address of ['/docs/nothing-here', '/docs/writing-skills/more']) {
      const page = await api.get<string>(address);
      expect(page.status).toBe(404);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.text).toContain('There is no page by that name in the docs.');
      expect(page.text).toContain('href="/docs"');
    }
  });

  it("runs the guide's curl examples, as written, against this server", async ({ api }) => {
    const person = await signUp(api);
    const { key } = await createKey(api, person);
    const page = await api.get<string>('/docs');
    const script = examples(page.text, 'sh');
    expect(script.length).toBeGreaterThanOrEqual(3);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script.join('\n')], {
      env: { ...process.env, KEY: key },
      timeout: 30_000,
    });
    // The first run streamed its three ticks and ended, and its status says so.
    expect(stdout).toContain('"type":"session.status_running"');
    expect(stdout.match(/"type":"agent\.message"/g)?.length).toBe(3);
    expect(stdout).toContain('"type":"session.status_idle"');
    expect(stdout).toMatch(/"status":"completed"/);
    expect(stdout).toContain('"skillSlug":"ticker"');
    // The one call answered with the run's page in the app.
    expect(stdout).toMatch(/"webUrl":"http[^"]+\/app\/runs\//);
    expect(stdout).toContain('{"items":[');
    expect(stdout).toContain('"balance"');
  }, 60_000);
});
