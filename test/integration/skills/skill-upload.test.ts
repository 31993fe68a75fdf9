import { rm } from 'node:fs/promises';
import { describe, expect } from 'vitest';
import { sweepOrphanBlobs } from '../../../src/artifacts/blob-collection.js';
import { blobStoreFor } from '../../../src/artifacts/blob-store-for.js';
import type { SkillFolderFile } from '../../../src/sdk/types.js';
import { runToEnd } from '../../helpers/executions.js';
import { session, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import { echoFolder, folderFile as file, installFolder as install, resultOf } from '../../helpers/skill-folders.js';

const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' });

describe('installing a skill from a folder', () => {
  it('installs it into the workspace, where it runs by its slug, and nowhere else', async ({ api }) => {
    const person = await signUp(api);
    const installed = await install(api, person, 'my-echo', await echoFolder());
    expect(installed.status).toBe(201);
    expect(installed.body).toEqual({
      slug: 'my-echo',
      name: 'Echo Summary',
      description: expect.stringContaining('Test skill'),
      runtime: 'script',
      files: 2,
    });
    const { stream } = await runToEnd(api, person, 'my-echo', 'hello from my folder');
    expect(resultOf(stream.events)).toBe('hello from my folder');

    const stranger = await signUp(api);
    const elsewhere = await api.post('/api/v1/executions', {
      body: { skill_slug: 'my-echo', input: 'x' },
      headers: session(stranger),
    });
    expect(elsewhere.status).toBe(404);
  });

  it('refuses a slug the server or the workspace already has, in words that say how to choose another', async ({ api }) => {
    const person = await signUp(api);
    expect((await install(api, person, 'twice', await echoFolder())).status).toBe(201);
    const remedy =
      'Install yours under a slug you choose: skillet skills install FOLDER --slug NAME, or the slug field of the request.';
    const clashes: [string, string][] = [
      ['twice', `This workspace already has a skill called twice. ${remedy}`],
      ['echo-summary', `echo-summary is the slug of one of this server's own skills, so yours needs another. ${remedy}`],
    ];
    for (const [folderName, message] of clashes) {
      const clash = await install(api, person, folderName, await echoFolder());
      expect([clash.status, clash.body]).toEqual([409, { error: { code: 'CONFLICT', message } }]);
    }
  });

  it('refuses hostile and broken folders with what is wrong, and installs nothing', async ({ api }) => {
    const person = await signUp(api);
    const [manifest, entry] = await echoFolder();
    const refusals: [string, SkillFolderFile[], number, RegExp][] = [
      ['a path out of the folder', [manifest as SkillFolderFile, file('../escape.mjs', 'x')], 400, /is not a path inside/],
      ['an absolute path', [manifest as SkillFolderFile, file('/etc/cron.d/x', 'x')], 400, /is not a path inside/],
      ['a backslash path', [manifest as SkillFolderFile, file('..\\up.mjs', 'x')], 400, /is not a path inside/],
      [
        'a path twice',
        [manifest as SkillFolderFile, entry as SkillFolderFile, entry as SkillFolderFile],
        400,
        /in the folder twice/,
      ],
      ['no SKILL.md', [entry as SkillFolderFile], 400, /has no SKILL\.md at its top/],
      ['a SKILL.md in a subfolder only', [{ ...(manifest as SkillFolderFile), path: 'sub/SKILL.md' }], 400, /no SKILL\.md/],
      ['a manifest without a description', [file('SKILL.md', '---\nname: X\n---\n')], 400, /^SKILL\.md cannot be used: /],
      ['an entry that is not there', [manifest as SkillFolderFile], 400, /names main\.mjs as its entry/],
      ['an empty folder', [], 400, /The folder is empty/],
      ['201 files', Array.from({ length: 201 }, (_, index) => file(`f${index}.txt`, 'x')), 413, /at most 200 files/],
    ];
    for (const [what, files, status, words] of refusals) {
      const refused = await install(api, person, 'hostile', files);
      expect(refused.status, what).toBe(status);
      expect(refused.body.error?.message, what).toMatch(words);
    }
    // Nothing of those stayed: the slug is still free.
    expect((await install(api, person, 'hostile', await echoFolder())).status).toBe(201);
  });

  it('writes the folder again from the stored files when this node has lost it; a blob sweep keeps them', async ({
    api,
    server,
  }) => {
    const person = await signUp(api);
    expect((await install(api, person, 'kept-echo', await echoFolder())).status).toBe(201);
    const row = await server.db.db
      .selectFrom('workspace_skills')
      .selectAll()
      .where('slug', '=', 'kept-echo')
      .executeTakeFirstOrThrow();
    expect(row.artifact_id).toBeNull();
    await rm(row.dir, { recursive: true, force: true });
    await sweepOrphanBlobs({ db: server.db.db, blobs: blobStoreFor(server.config), config: server.config });

    const { stream } = await runToEnd(api, person, 'kept-echo', 'still here');
    expect(resultOf(stream.events)).toBe('still here');
  });
});
