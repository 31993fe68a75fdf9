import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import type { Artifact, Manifest } from '../../src/sdk/types.js';
import { parseSkillManifest } from '../../src/skills/manifest.js';
import { runForArtifact, sha256 } from '../helpers/artifacts.js';
import { session, signUp } from '../helpers/factories.js';
import { withServer } from '../helpers/fixtures.js';

interface SkillCreator {
  skillBundle(description: string): { name: string; slug: string; manifest: string; entry: string };
}

// The skill is plain JavaScript with no declarations; its one export the tests use is typed here.
const creator = (await import(
  pathToFileURL(path.join(PROJECT_ROOT, 'skills', 'skill-creator', 'main.mjs')).href
)) as SkillCreator;

/** Code a hostile name smuggles in: on import it says PWNED on the protocol channel and drops a marker file. */
const SAY = `process.stdout.write('{"type":"message","text":"PWNED"}\\n')`;
const DROP = `import('fs').then(f=>f.writeFileSync('PWNED','x'))`;

/** Descriptions shaped to break out of whatever the generated code puts them in. */
const HOSTILE: [string, string][] = [
  ['comment closer rebuilt after one strip', `aa **//${SAY}/*`],
  ['comment closer repeated', `bb */ */ **//${DROP}/*`],
  ['closers side by side', `cc */*/**// ${SAY} /* */`],
  ['template literal', `dd \`\${process.stdout.write("PWNED")}\` and \${1+1}`],
  ['newlines after the first line', `ee plain name\n*/ ${SAY} /*\n\`\${${DROP}}\``],
  ['quotes', `ff "'"; ${SAY}; '"\\`],
  ['script tag', `gg </script><script>${SAY}</script>`],
  ['carriage return and tab', `hh \t\r**//${DROP}/*`],
];

const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' }).extend(
  'person',
  { scope: 'file' },
  ({ api }) => signUp(api),
);

describe('skill-creator with a hostile description', () => {
  it.for(HOSTILE)(
    '%s: the installed skill runs as written and none of the name runs as code',
    async ([_shape, description], { api, person }) => {
      const created = await runForArtifact(api, person, 'skill-creator', description);
      expect(created.events.at(-1)).toMatchObject({ payload: { stop_reason: { type: 'end_turn' } } });
      const installed = await api.post<Artifact>(`/api/v1/artifacts/${created.artifactId}/install`, { headers: session(person) });
      expect(installed.status).toBe(200);
      const slug = installed.body.createdSkillSlug;
      if (!slug) throw new Error('the artifact installed no skill');

      const run = await runForArtifact(api, person, slug, 'hello there');
      expect(run.events.at(-1)).toMatchObject({ type: 'session.status_idle', payload: { stop_reason: { type: 'end_turn' } } });
      expect(JSON.stringify(run.events)).not.toContain('PWNED');
      const echoed = await api.get<Artifact>(`/api/v1/artifacts/${run.artifactId}`, { headers: session(person) });
      // One file, echo.txt: a marker file beside it would have made the output a bundle.
      expect(echoed.body).toMatchObject({ bundleType: null, content: 'hello there' });

      // The entry module the creator wrote is the one it writes for every name.
      const manifest = await api.get<Manifest>(`/api/v1/artifacts/${created.artifactId}/manifest`, { headers: session(person) });
      const entry = manifest.body.files.find((file) => file.path === 'skill/main.mjs');
      expect(entry?.checksum).toBe(`sha256:${sha256(Buffer.from(creator.skillBundle('Plain').entry))}`);
    },
  );
});

describe('skillBundle', () => {
  it('writes the same entry module whatever the description', () => {
    const reference = creator.skillBundle('Echo').entry;
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom(...HOSTILE.map(([, text]) => text))), (description) => {
        expect(creator.skillBundle(description).entry).toBe(reference);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps the name and description as data in SKILL.md: they read back as written and change no other key', () => {
    const description = fc.string({ unit: 'binary', minLength: 1 }).filter((text) => text.trim() !== '');
    fc.assert(
      fc.property(fc.oneof(description, fc.constantFrom(...HOSTILE.map(([, text]) => text))), (text) => {
        const bundle = creator.skillBundle(text);
        const manifest = parseSkillManifest(bundle.manifest, 'skill');
        expect(manifest).toMatchObject({ name: bundle.name, slug: bundle.slug, runtime: 'script', entry: 'main.mjs', price: 0 });
      }),
      { numRuns: 500 },
    );
  });
});
