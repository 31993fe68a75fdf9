import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, onTestFinished } from 'vitest';
import { PROJECT_ROOT } from '../../../src/paths.js';
import { withCliServer } from '../../helpers/cli.js';

const it = withCliServer();

// Compiling the project takes longer than a test may: naming `build` here sets it up ahead.
// biome-ignore lint/correctness/noUnusedFunctionParameters: Vitest sets up the fixtures a hook names.
it.beforeAll(({ build }) => {}, 120_000);

/** The echo test skill in a folder named my-skill, its SKILL.md's name as given. */
async function mySkillFolder(name: string): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'skillet-cli-skills-'));
  onTestFinished(() => rm(root, { recursive: true, force: true }));
  const dir = path.join(root, 'my-skill');
  await mkdir(dir);
  const skills = path.join(PROJECT_ROOT, 'test', 'skills', 'echo-summary');
  const manifest = (await readFile(path.join(skills, 'SKILL.md'), 'utf8')).replace(/^name: .*$/m, `name: ${name}`);
  await writeFile(path.join(dir, 'SKILL.md'), manifest);
  await writeFile(path.join(dir, 'main.mjs'), await readFile(path.join(skills, 'main.mjs')));
  return dir;
}

describe('skillet skills: the workspace’s own', () => {
  it('lists and shows an installed skill as yours, updates it from its folder and removes it once confirmed', async ({
    cli,
    signIn,
  }) => {
    await signIn();
    const dir = await mySkillFolder('My Echo');
    const installed = cli(['skills', 'install', dir]);
    expect(await installed.exited, installed.stderr()).toBe(0);

    const listed = cli(['skills']);
    expect(await listed.exited, listed.stderr()).toBe(0);
    const rows = listed.stdout().split('\n');
    expect(rows[0]).toMatch(/^SLUG\s+FROM\s+PRICE\s+RUNTIME\s+DESCRIPTION/);
    expect(rows.find((row) => row.startsWith('my-skill '))).toMatch(/^my-skill\s+yours\s/);
    expect(rows.find((row) => row.startsWith('echo-summary '))).toMatch(/^echo-summary\s+server\s/);

    const shown = cli(['skills', 'show', 'my-skill']);
    expect(await shown.exited, shown.stderr()).toBe(0);
    expect(shown.stdout()).toContain('My Echo (my-skill)');
    expect(shown.stdout()).toContain(
      'From:     yours, installed into this workspace (skillet skills update FOLDER, skillet skills remove my-skill)',
    );

    await writeFile(
      path.join(dir, 'SKILL.md'),
      (await readFile(path.join(dir, 'SKILL.md'), 'utf8')).replace('name: My Echo', 'name: My Echo Two'),
    );
    const updated = cli(['skills', 'update', dir]);
    expect(await updated.exited, updated.stderr()).toBe(0);
    expect(updated.stdout()).toBe('Updated My Echo Two (my-skill, 2 files). Its next run uses this version.\n');
    const ran = cli(['run', 'my-skill', 'after the update', '--json']);
    expect(await ran.exited, ran.stderr()).toBe(0);
    expect(ran.stdout()).toContain('"summary":"after the update"');

    // No terminal to ask at, and no --yes: nothing goes.
    const unconfirmed = cli(['skills', 'remove', 'my-skill']);
    expect(await unconfirmed.exited).toBe(2);
    expect(unconfirmed.stderr()).toBe(
      'Nothing was removed: there is no terminal to confirm at. To remove my-skill, run: skillet skills remove my-skill --yes\n',
    );
    expect(await cli(['skills', 'show', 'my-skill']).exited).toBe(0);

    const removed = cli(['skills', 'remove', 'my-skill', '--yes']);
    expect(await removed.exited, removed.stderr()).toBe(0);
    expect(removed.stdout()).toBe('Removed my-skill. Its past runs and their artifacts are still in your history.\n');
    const gone = cli(['skills', 'show', 'my-skill']);
    expect(await gone.exited).toBe(1);
    expect(gone.stderr()).toContain('No skill "my-skill"');

    const again = cli(['skills', 'remove', 'my-skill', '--yes']);
    expect(await again.exited).toBe(1);
    expect(again.stderr()).toBe(
      'This workspace has no installed skill called my-skill. See the list of skills for the ones it has.\n',
    );
    const builtIn = cli(['skills', 'update', dir, '--slug', 'echo-summary']);
    expect(await builtIn.exited).toBe(1);
    expect(builtIn.stderr()).toBe(
      "echo-summary is one of this server's own skills, so it cannot be updated here. Ask the operator.\n",
    );
  });
});
