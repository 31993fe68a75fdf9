import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { runToEnd } from '../../helpers/executions.js';
import { signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import { echoFolder, folderFile, installFolder, resultOf, storedSkillsOf } from '../../helpers/skill-folders.js';

/**
 * Skills ship fonts, templates and images (the public document skills carry several MB of
 * fonts): a folder of up to 30 MB installs over real HTTP, one byte more is refused in words
 * and leaves nothing behind. Random bytes, so no layer on the way can compress them small.
 */
const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' });

const MB = 1024 * 1024;
const CAP = 30 * MB;

const sizeOf = (files: { content: string }[]) =>
  files.reduce((total, file) => total + Buffer.from(file.content, 'base64').length, 0);

describe('the size a skill folder may have', () => {
  it('a 25 MB skill with its fonts installs and runs, its files stored whole', async ({ api, server }) => {
    const person = await signUp(api);
    const font = randomBytes(25 * MB);
    const files = [...(await echoFolder()), folderFile('assets/fonts/Display.ttf', font)];
    const installed = await installFolder(api, person, 'with-fonts', files);
    expect([installed.status, installed.body.slug, installed.body.files]).toEqual([201, 'with-fonts', 3]);

    const { stream } = await runToEnd(api, person, 'with-fonts', 'set in my own font');
    expect(resultOf(stream.events)).toBe('set in my own font');
    const row = await server.db.db
      .selectFrom('workspace_skills')
      .select('dir')
      .where('workspace_id', '=', person.user.personalWorkspaceId)
      .where('slug', '=', 'with-fonts')
      .executeTakeFirstOrThrow();
    const onDisk = await readFile(path.join(row.dir, 'assets', 'fonts', 'Display.ttf'));
    expect(createHash('sha256').update(onDisk).digest('hex')).toBe(createHash('sha256').update(font).digest('hex'));
  });

  it('one byte over 30 MB, or far more, is refused in the envelope and stores nothing; exactly 30 MB installs', async ({
    api,
    server,
  }) => {
    const person = await signUp(api);
    const echo = await echoFolder();
    const withAssets = (bytes: number) => [...echo, folderFile('assets/images.bin', randomBytes(bytes - sizeOf(echo)))];

    const over = await installFolder(api, person, 'too-big', withAssets(CAP + 1));
    expect([over.status, over.body]).toEqual([
      413,
      {
        error: {
          code: 'PAYLOAD_TOO_LARGE',
          message: 'A skill folder may hold at most 30 MB of files. Leave data and dependencies out of it.',
        },
      },
    ]);
    expect(await storedSkillsOf(server, person)).toEqual({ skills: [], files: 0, folders: 0 });

    // Far past the limit, the request itself is refused (in the same envelope) before any of it is used.
    const huge = await installFolder(api, person, 'too-big', withAssets(45 * MB));
    expect([huge.status, huge.body.error?.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect(await storedSkillsOf(server, person)).toEqual({ skills: [], files: 0, folders: 0 });

    const atCap = await installFolder(api, person, 'too-big', withAssets(CAP));
    expect([atCap.status, atCap.body.slug]).toEqual([201, 'too-big']);
  });
});
