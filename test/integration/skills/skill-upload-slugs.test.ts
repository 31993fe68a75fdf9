import { describe, expect } from 'vitest';
import { runToEnd } from '../../helpers/executions.js';
import { session, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import { echoFolder, folderFile, installFolder, resultOf, storedSkillsOf } from '../../helpers/skill-folders.js';

/**
 * A public skill's folder is often named like one of the server's own (pdf, xlsx,
 * skill-creator): the person installs it under a slug they choose, or is told how.
 */
const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' });

const REMEDY =
  'Install yours under a slug you choose: skillet skills install FOLDER --slug NAME, or the slug field of the request.';

describe('installing a skill named like one of the server’s', () => {
  it('is refused without a chosen slug, in words that say how to choose one; with one it installs and runs by it', async ({
    api,
  }) => {
    const person = await signUp(api);
    for (const builtIn of ['pdf', 'xlsx', 'skill-creator']) {
      const refused = await installFolder(api, person, builtIn, await echoFolder());
      expect([refused.status, refused.body]).toEqual([
        409,
        {
          error: {
            code: 'CONFLICT',
            message: `${builtIn} is the slug of one of this server's own skills, so yours needs another. ${REMEDY}`,
          },
        },
      ]);
    }

    const installed = await installFolder(api, person, 'pdf', await echoFolder(), 'my-pdf');
    expect([installed.status, installed.body.slug, installed.body.name]).toEqual([201, 'my-pdf', 'Echo Summary']);
    const { stream } = await runToEnd(api, person, 'my-pdf', 'my own pdf skill');
    expect(resultOf(stream.events)).toBe('my own pdf skill');
    // The server's own pdf is untouched.
    const skills = await api.get<{ items: { slug: string; name: string }[] }>('/api/v1/marketplace/skills?limit=100', {
      headers: session(person),
    });
    expect(skills.body.items.find((skill) => skill.slug === 'pdf')?.name).not.toBe('Echo Summary');
  });

  it('a chosen slug wins over the one the SKILL.md names', async ({ api }) => {
    const person = await signUp(api);
    const [manifest, entry] = await echoFolder();
    const named = Buffer.from(manifest?.content ?? '', 'base64')
      .toString('utf8')
      .replace('runtime: script', 'slug: xlsx\nruntime: script');
    const files = [folderFile('SKILL.md', named), entry ?? folderFile('main.mjs', '')];
    const refused = await installFolder(api, person, 'sheets', files);
    expect(refused.body.error?.message).toBe(
      `xlsx is the slug of one of this server's own skills, so yours needs another. ${REMEDY}`,
    );
    const installed = await installFolder(api, person, 'sheets', files, 'my-sheets');
    expect([installed.status, installed.body.slug]).toEqual([201, 'my-sheets']);
    const { stream } = await runToEnd(api, person, 'my-sheets', 'cells');
    expect(resultOf(stream.events)).toBe('cells');
  });

  it('refuses a chosen slug with path parts, of another skill or of the wrong shape, and stores nothing', async ({
    api,
    server,
  }) => {
    const person = await signUp(api);
    const shapes = ['../escape', 'a/b', '/etc/cron.d', '..', 'My-Skill', 'pdf 2', '-dash', '', 'a'.repeat(64), 'é', 'x\u0000y'];
    for (const slug of shapes) {
      const refused = await installFolder(api, person, 'mine', await echoFolder(), slug);
      expect([refused.status, refused.body.error?.code], JSON.stringify(slug)).toEqual([400, 'INVALID_INPUT']);
      expect(refused.body.error?.message, JSON.stringify(slug)).toBe(
        'The slug you chose cannot name a skill. Choose one of lower-case letters, digits and dashes (at most 63), starting with a letter or digit.',
      );
    }
    for (const builtIn of ['skill-creator', 'pdf', 'echo-summary']) {
      const refused = await installFolder(api, person, 'mine', await echoFolder(), builtIn);
      expect([refused.status, refused.body]).toEqual([
        409,
        {
          error: {
            code: 'CONFLICT',
            message: `${builtIn} is the slug of one of this server's own skills, so yours needs another. Choose another slug for yours.`,
          },
        },
      ]);
    }
    expect(await storedSkillsOf(server, person)).toEqual({ skills: [], files: 0, folders: 0 });

    // The workspace's own skills are taken too; the words then say to choose again.
    expect((await installFolder(api, person, 'mine', await echoFolder(), 'taken')).status).toBe(201);
    const again = await installFolder(api, person, 'other', await echoFolder(), 'taken');
    expect([again.status, again.body.error?.message]).toEqual([
      409,
      'This workspace already has a skill called taken. Choose another slug for yours.',
    ]);
    expect(await storedSkillsOf(server, person)).toEqual({ skills: ['taken'], files: 2, folders: 1 });
  });

  it('another workspace’s skills stay invisible: the same chosen slug installs there, and each runs its own', async ({ api }) => {
    const [first, second] = [await signUp(api), await signUp(api)];
    expect((await installFolder(api, first, 'pdf', await echoFolder(), 'team-pdf')).status).toBe(201);
    const outsider = await api.post('/api/v1/executions', {
      body: { skill_slug: 'team-pdf', input: 'x' },
      headers: session(second),
    });
    expect(outsider.status).toBe(404);

    const [manifest, entry] = await echoFolder();
    const renamed = Buffer.from(manifest?.content ?? '', 'base64')
      .toString('utf8')
      .replace('name: Echo Summary', 'name: Second Echo');
    const theirs = await installFolder(
      api,
      second,
      'pdf',
      [folderFile('SKILL.md', renamed), entry ?? folderFile('x', '')],
      'team-pdf',
    );
    expect([theirs.status, theirs.body.slug, theirs.body.name]).toEqual([201, 'team-pdf', 'Second Echo']);
    for (const [person, name] of [
      [first, 'Echo Summary'],
      [second, 'Second Echo'],
    ] as const) {
      const { created, stream } = await runToEnd(api, person, 'team-pdf', `from ${person.email}`);
      expect(created.skill_name).toBe(name);
      expect(resultOf(stream.events)).toBe(`from ${person.email}`);
    }
  });
});
