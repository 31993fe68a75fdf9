import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { SkillFolderFile } from '../../src/sdk/types.js';
import { signUp } from '../helpers/factories.js';
import { withServer } from '../helpers/fixtures.js';
import { echoFolder, folderFile, installFolder, storedSkillsOf } from '../helpers/skill-folders.js';
import { runs, UNLIMITED } from './settings.js';

/**
 * Skill folders whose paths are drawn from a few names that collide (a name that is a file
 * in one path and a folder in another, SKILL.md and the entry among them) and names on
 * either side of the file system's 255-byte limit, in one- and many-byte characters (issue
 * 50, item 6). The oracle is the file system itself: the same files written into a folder
 * of the test's. Where that fails the install must be a 400 in the standard envelope with
 * nothing stored, where it works the install must succeed; never a 5xx.
 */
const it = withServer(UNLIMITED);

const NAMES = [
  'a',
  'b',
  'SKILL.md',
  'main.mjs',
  'x'.repeat(255),
  'x'.repeat(256),
  // 85 and 86 three-byte characters: 255 and 258 bytes.
  '字'.repeat(85),
  '字'.repeat(86),
  // 128 two-byte characters: 256 bytes in 128 characters.
  'é'.repeat(128),
];

/** At most three names a path, so no path passes the schema's 1,024 characters: that refusal is another matter. */
const paths = fc.array(
  fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 }).map((names) => names.join('/')),
  { minLength: 1, maxLength: 5 },
);

/** Whether the files can be written as a folder: the answer the server must agree with. */
async function writable(files: SkillFolderFile[]): Promise<boolean> {
  const dir = await mkdtemp(path.join(tmpdir(), 'skillet-folder-oracle-'));
  try {
    for (const file of files) {
      const target = path.join(dir, ...file.path.split('/'));
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, Buffer.from(file.content, 'base64'), { flag: 'wx' });
    }
    return true;
  } catch {
    return false;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

it('installs a folder exactly when its files can be written, and refuses the rest in words', async ({ api, server }) => {
  const person = await signUp(api);
  const echo = await echoFolder();
  let installs = 0;
  let refusals = 0;
  await fc.assert(
    fc.asyncProperty(paths, async (extra) => {
      const files = [...echo, ...extra.map((filePath) => folderFile(filePath, filePath))];
      const slug = `fuzzed-${installs + refusals}`;
      const before = await storedSkillsOf(server, person);
      const answer = await installFolder(api, person, slug, files, slug);
      if (await writable(files)) {
        expect([answer.status, answer.body.slug], JSON.stringify(extra)).toEqual([201, slug]);
        installs++;
        return;
      }
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body).toEqual({ error: { code: 'INVALID_INPUT', message: expect.stringMatching(/\. .*\.$/) } });
      expect(await storedSkillsOf(server, person)).toEqual(before);
      refusals++;
    }),
    runs(80),
  );
  // Both sides were reached, or the property said little.
  expect([installs > 0, refusals > 0]).toEqual([true, true]);
});
