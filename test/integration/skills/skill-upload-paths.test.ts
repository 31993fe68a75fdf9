import { readdir } from 'node:fs/promises';
import { describe, expect } from 'vitest';
import type { SkillFolderFile } from '../../../src/sdk/types.js';
import { signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import type { TestServer } from '../../helpers/server.js';
import { echoFolder, folderFile as file, installFolder as install, storedSkillsOf } from '../../helpers/skill-folders.js';

/**
 * Paths that pass as relative paths but that no folder can hold (issue 50, item 6): a name
 * that is a file and a folder at once, and a name longer than the file system takes. They
 * were written out before anything checked them, and the file system's EEXIST, ENOTDIR or
 * ENAMETOOLONG came back as a 500. Now each is a 400 in words with nothing stored.
 */
const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' });

/** Every blob the store holds, staged or committed: a refused folder must add none. */
async function blobFilesOf(server: TestServer): Promise<number> {
  if (server.config.blobs.kind !== 'folder') throw new Error('these tests read a folder blob store');
  const entries = await readdir(server.config.blobs.dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).length;
}

const both = (name: string) =>
  `“${name}” is both a file and a folder in this upload. A name can only be one of them: rename the file or the folder, then install again.`;
const tooLong = (shown: string) =>
  `“${shown}” is longer than a file or folder name may be (255 bytes). Shorten it, then install again.`;

describe('paths no folder can hold', () => {
  it('a name that is a file and a folder, or longer than a name may be, is a 400 in words and stores nothing', async ({
    api,
    server,
  }) => {
    const person = await signUp(api);
    const [manifest, entry] = (await echoFolder()) as [SkillFolderFile, SkillFolderFile];
    const long = 'x'.repeat(300);
    // 90 characters but 270 bytes of UTF-8: the file system counts bytes.
    const wide = '字'.repeat(90);
    const cases: [string, SkillFolderFile[], string][] = [
      ['a file, then a file inside it', [manifest, entry, file('a', 'x'), file('a/b', 'y')], both('a')],
      ['a file inside, then the file', [manifest, entry, file('a/b', 'y'), file('a', 'x')], both('a')],
      ['deeper: a/b beside a/b/c/d', [manifest, entry, file('a/b/c/d', 'y'), file('a/b', 'x')], both('a/b')],
      ['SKILL.md as a folder too', [manifest, entry, file('SKILL.md/x', 'y')], both('SKILL.md')],
      ['the entry as a folder too', [manifest, entry, file('main.mjs/evil.mjs', 'y')], both('main.mjs')],
      ['a 300-character file name', [manifest, entry, file(`assets/${long}`, 'x')], tooLong(`${'x'.repeat(40)}…`)],
      ['a 300-character folder name', [manifest, entry, file(`${long}/a.txt`, 'x')], tooLong(`${'x'.repeat(40)}…`)],
      ['a name of 270 bytes in 90 characters', [manifest, entry, file(`${wide}.txt`, 'x')], tooLong(`${'字'.repeat(40)}…`)],
    ];
    const blobsBefore = await blobFilesOf(server);
    for (const [what, files, message] of cases) {
      const refused = await install(api, person, 'odd-paths', files);
      expect([refused.status, refused.body], what).toEqual([400, { error: { code: 'INVALID_INPUT', message } }]);
    }
    expect(await storedSkillsOf(server, person)).toEqual({ skills: [], files: 0, folders: 0 });
    expect(await blobFilesOf(server)).toBe(blobsBefore);
  });

  it('a name of exactly 255 bytes and folders that only share a beginning install', async ({ api }) => {
    const person = await signUp(api);
    const files = [
      ...(await echoFolder()),
      file(`assets/${'n'.repeat(255)}`, 'longest name'),
      file('a/b', 'x'),
      file('ab', 'a name that begins like the folder a'),
      file('a.b/c', 'y'),
    ];
    const installed = await install(api, person, 'edge-paths', files);
    expect([installed.status, installed.body.files]).toEqual([201, 6]);
  });
});
