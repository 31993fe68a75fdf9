import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { runCli, withCliServer } from '../../helpers/cli.js';

const it = withCliServer();

// Compiling the project takes longer than a test may: naming `build` here sets it up ahead.
// biome-ignore lint/correctness/noUnusedFunctionParameters: Vitest sets up the fixtures a hook names.
it.beforeAll(({ build }) => {}, 120_000);

const workFolder = () => mkdtemp(path.join(tmpdir(), 'skillet-init-'));

describe('skillet skills init', () => {
  it('makes a script skill folder that installs and runs through the server, and says how', async ({ cli, signIn, server }) => {
    const work = await workFolder();
    try {
      const folder = path.join(work, 'length-teller');
      const made = cli(['skills', 'init', folder, '--kind', 'script', '--name', 'Length teller']);
      expect(await made.exited, made.stderr()).toBe(0);
      expect(made.stdout()).toBe(
        [
          `Made a script skill in ${folder}: SKILL.md and main.mjs.`,
          'Install it and run it:',
          `  skillet skills install ${folder}`,
          '  skillet run length-teller',
          `How to change it: ${server.url}/docs/writing-skills`,
          '',
        ].join('\n'),
      );
      expect((await readdir(folder)).sort()).toEqual(['SKILL.md', 'main.mjs']);
      expect(await readFile(path.join(folder, 'SKILL.md'), 'utf8')).toContain('name: "Length teller"\n');

      // The commands it printed, as printed.
      await signIn();
      const installed = cli(['skills', 'install', folder]);
      expect(await installed.exited, installed.stderr()).toBe(0);
      expect(installed.stdout()).toContain('Installed Length teller (length-teller, 2 files).');
      const ran = cli(['run', 'length-teller', '--json']);
      expect(await ran.exited, ran.stderr()).toBe(0);
      // No input given: the default input it wrote is used, and what it writes is the run's artifact.
      expect(ran.stdout()).toContain('Your input is 20 characters long.');
      expect(ran.stdout()).toContain('"summary":"20 characters"');
      const artifacts = cli(['artifacts', '--json']);
      expect(await artifacts.exited, artifacts.stderr()).toBe(0);
      expect(artifacts.stdout()).toContain('result.json');
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }, 60_000);

  it('makes an agent skill the server installs', async ({ cli, signIn }) => {
    const work = await workFolder();
    try {
      const folder = path.join(work, 'haiku-writer');
      const made = cli(['skills', 'init', folder, '--kind', 'agent']);
      expect(await made.exited, made.stderr()).toBe(0);
      expect(made.stdout()).toContain(`Made an agent skill in ${folder}: SKILL.md.`);
      expect(made.stdout()).toContain('needs a model key');
      // No name given, and no terminal to ask at: the folder's name, in words.
      expect(await readFile(path.join(folder, 'SKILL.md'), 'utf8')).toContain('name: "Haiku writer"\n');
      await signIn();
      const installed = cli(['skills', 'install', folder, '--json']);
      expect(await installed.exited, installed.stderr()).toBe(0);
      expect(JSON.parse(installed.stdout())).toMatchObject({ slug: 'haiku-writer', name: 'Haiku writer' });
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }, 60_000);

  it('names the folder after the skill when given none, from the folder the person is in', async ({ build, env }) => {
    const work = await workFolder();
    try {
      const throughNpm = { ...env, INIT_CWD: work, npm_lifecycle_event: 'skillet' };
      const made = runCli(build.dir, ['skills', 'init', '--name', 'Word Count!', '--kind', 'script'], throughNpm);
      expect(await made.exited, made.stderr()).toBe(0);
      expect(made.stdout()).toContain('  skillet skills install ./word-count\n  skillet run word-count\n');
      expect((await readdir(path.join(work, 'word-count'))).sort()).toEqual(['SKILL.md', 'main.mjs']);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  it('refuses a folder that holds files, a file, and an unknown kind, in words, writing nothing', async ({ cli }) => {
    const work = await workFolder();
    try {
      const full = path.join(work, 'mine');
      await mkdir(full);
      await writeFile(path.join(full, 'notes.txt'), 'keep me');
      const refused = cli(['skills', 'init', full, '--kind', 'script']);
      expect(await refused.exited).toBe(2);
      expect(refused.stderr()).toContain(
        `${full} already holds files (notes.txt), and init leaves them alone. Give a new or empty folder`,
      );
      expect(await readdir(full)).toEqual(['notes.txt']);

      const file = path.join(full, 'notes.txt');
      const onFile = cli(['skills', 'init', file, '--kind', 'script']);
      expect(await onFile.exited).toBe(2);
      expect(onFile.stderr()).toContain(`${file} is a file. Give a new folder's name, such as my-skill.`);

      const noName = cli(['skills', 'init', path.join(work, 'other'), '--kind', 'script', '--name', ' ']);
      expect(await noName.exited).toBe(2);
      expect(noName.stderr()).toContain('A skill needs a name: give one with --name, such as --name "Word count".');

      const badKind = cli(['skills', 'init', path.join(work, 'other'), '--kind', 'python']);
      expect(await badKind.exited).toBe(2);
      expect(badKind.stderr()).toContain("'python' is invalid");
      expect(await readdir(work)).toEqual(['mine']);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  it('`skillet --help` names the docs of the server it talks to', async ({ cli, server }) => {
    const help = cli(['--help']);
    expect(await help.exited).toBe(0);
    expect(help.stdout()).toContain(`The guide (getting started, writing a skill, the API reference) is at ${server.url}/docs\n`);
    const elsewhere = cli(['--base-url', 'https://skillet.example', '--help']);
    expect(await elsewhere.exited).toBe(0);
    expect(elsewhere.stdout()).toContain('is at https://skillet.example/docs\n');
  });
});
