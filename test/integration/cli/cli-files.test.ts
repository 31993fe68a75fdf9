import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, onTestFinished } from 'vitest';
import { PROJECT_ROOT } from '../../../src/paths.js';
import { withCliServer } from '../../helpers/cli.js';
import { createKey, signUp } from '../../helpers/factories.js';
import { type InputFile, uploadRaw } from '../../helpers/files.js';

const it = withCliServer();

// Compiling the project takes longer than a test may: naming `build` here sets it up ahead.
// biome-ignore lint/correctness/noUnusedFunctionParameters: Vitest sets up the fixtures a hook names.
it.beforeAll(({ build }) => {}, 120_000);

const sha256 = (bytes: string) => createHash('sha256').update(bytes).digest('hex');

/** A folder of files for one test, removed after it. */
async function folderWith(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'skillet-cli-files-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  return dir;
}

async function filesApi(url: string, key: string): Promise<InputFile[]> {
  const reply = await fetch(`${url}/api/v1/files?limit=100`, { headers: { 'x-api-key': key } });
  return ((await reply.json()) as { items: InputFile[] }).items;
}

describe('skillet files', () => {
  it('uploads files (any name), prints their ids, lists them in a table and deletes one', async ({
    server,
    cli,
    signIn,
    storedKey,
  }) => {
    await signIn();
    // A name that reads as percent-encoding already must come through as it is.
    const dir = await folderWith({ 'notes.txt': 'some notes', 'résumé – 2024.csv': 'a,b\n', '100%41 done.txt': '' });
    const names = ['notes.txt', 'résumé – 2024.csv', '100%41 done.txt'];
    const upload = cli(['files', 'upload', ...names.map((name) => path.join(dir, name))]);
    expect(await upload.exited, upload.stderr()).toBe(0);
    const ids = upload.stdout().trim().split('\n');
    expect(ids).toHaveLength(3);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(upload.stderr()).toContain('Uploaded 3 files.');
    const stored = await filesApi(server.url, (await storedKey()) as string);
    expect(stored.filter((file) => ids.includes(file.id)).map((file) => [file.filename, file.size, file.sha256])).toEqual([
      ['100%41 done.txt', 0, sha256('')],
      ['résumé – 2024.csv', 4, sha256('a,b\n')],
      ['notes.txt', 10, sha256('some notes')],
    ]);

    const ls = cli(['files', 'ls']);
    expect(await ls.exited).toBe(0);
    const lines = ls.stdout().trim().split('\n');
    expect(lines[0]).toMatch(/^FILE\s+SIZE\s+TYPE\s+EXPIRES\s+NAME$/);
    expect(ls.stdout()).toMatch(new RegExp(`^${ids[0]}\\s+10 B\\s+text/plain\\s+\\d{4}-\\d{2}-\\d{2}\\s+notes\\.txt$`, 'm'));
    expect(ls.stdout()).toMatch(new RegExp(`^${ids[1]}\\s+4 B\\s+text/csv\\s+.*résumé – 2024\\.csv$`, 'm'));
    const json = cli(['files', 'ls', '--json']);
    expect(await json.exited).toBe(0);
    expect((JSON.parse(json.stdout()) as InputFile[]).map((file) => file.id)).toEqual(expect.arrayContaining(ids));

    const removed = cli(['files', 'rm', ids[0] as string]);
    expect(await removed.exited).toBe(0);
    expect(removed.stderr()).toBe(`Deleted ${ids[0]}.\n`);
    const again = cli(['files', 'rm', ids[0] as string]);
    expect(await again.exited).toBe(1);
    expect(again.stderr()).toContain('File not found');
    expect(again.stderr()).not.toMatch(/DELETE|\/api\/v1/);
  });

  it("says plainly when a path is no file, uploading nothing; another workspace's file is not found", async ({
    server,
    api,
    cli,
    signIn,
    storedKey,
  }) => {
    await signIn();
    const dir = await folderWith({ 'real.txt': 'real' });
    await mkdir(path.join(dir, 'folder'));
    const before = (await filesApi(server.url, (await storedKey()) as string)).length;
    for (const [missing, words] of [
      [path.join(dir, 'nope.txt'), 'Could not read'],
      [path.join(dir, 'folder'), 'is not a file'],
    ] as const) {
      const run = cli(['files', 'upload', path.join(dir, 'real.txt'), missing]);
      expect(await run.exited).toBe(2);
      expect(run.stderr()).toContain(words);
      expect(run.stdout()).toBe('');
    }
    expect(await filesApi(server.url, (await storedKey()) as string)).toHaveLength(before);

    const stranger = await signUp(api);
    const theirs = await uploadRaw(server.url, { 'x-api-key': (await createKey(api, stranger)).key }, 'theirs.txt', 'x');
    const rmTheirs = cli(['files', 'rm', theirs.body.id]);
    expect(await rmTheirs.exited).toBe(1);
    expect(rmTheirs.stderr()).toContain('File not found');
    const run = cli(['run', 'reads-uploads', 'x', '--file', path.join(dir, 'nope.txt')]);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain('Could not read');
  });
});

describe('skillet run --file', () => {
  it('uploads each file, runs the skill on them with "See the attached files", and the run reads them', async ({
    server,
    cli,
    signIn,
    storedKey,
  }) => {
    await signIn();
    const key = (await storedKey()) as string;
    const dir = await folderWith({ 'a.txt': 'first', 'b.txt': 'second file' });
    const run = cli(['run', 'reads-uploads', '--file', path.join(dir, 'a.txt'), '--file', path.join(dir, 'b.txt')]);
    expect(await run.exited, run.stderr()).toBe(0);
    const artifactId = /Artifact ([0-9a-f-]{36})/.exec(run.stderr())?.[1] as string;
    const report = (await (
      await fetch(`${server.url}/api/v1/artifacts/${artifactId}/raw`, { headers: { 'x-api-key': key } })
    ).json()) as { files: { path: string; size: number; sha256: string }[] };
    expect(report.files).toEqual([
      { path: 'a.txt', size: 5, sha256: sha256('first') },
      { path: 'b.txt', size: 11, sha256: sha256('second file') },
    ]);
    const history = (await (
      await fetch(`${server.url}/api/v1/executions?limit=1`, { headers: { 'x-api-key': key } })
    ).json()) as {
      items: { inputText: string; interface: string }[];
    };
    expect(history.items[0]).toMatchObject({ inputText: 'See the attached files', interface: 'cli' });
  });

  it('keeps given input text, reads input with --input-file, and deletes its uploads when the run is refused', async ({
    server,
    cli,
    signIn,
    storedKey,
  }) => {
    await signIn();
    const key = (await storedKey()) as string;
    const dir = await folderWith({ 'a.txt': 'first', 'input.txt': '2 1' });
    const given = cli(['run', 'reads-uploads', 'Count them', '--file', path.join(dir, 'a.txt')]);
    expect(await given.exited, given.stderr()).toBe(0);
    const history = async () =>
      (
        (await (await fetch(`${server.url}/api/v1/executions?limit=1`, { headers: { 'x-api-key': key } })).json()) as {
          items: { inputText: string; skillSlug: string }[];
        }
      ).items[0];
    expect(await history()).toMatchObject({ inputText: 'Count them' });

    const fromFile = cli(['run', 'ticker', '--input-file', path.join(dir, 'input.txt')]);
    expect(await fromFile.exited, fromFile.stderr()).toBe(0);
    expect(fromFile.stdout().trim().split('\n')).toEqual(['tick 1 of 2', 'tick 2 of 2']);

    const before = (await filesApi(server.url, key)).map((file) => file.id);
    const refused = cli(['run', 'no-such-skill', '--file', path.join(dir, 'a.txt')]);
    expect(await refused.exited).toBe(1);
    expect(refused.stderr()).toContain('No skill with slug no-such-skill');
    expect((await filesApi(server.url, key)).map((file) => file.id)).toEqual(before);
  });

  it('refuses --file for a skill that does not read files before uploading anything, and says what to do', async ({
    server,
    cli,
    signIn,
    storedKey,
  }) => {
    await signIn();
    const key = (await storedKey()) as string;
    const dir = await folderWith({ 'notes.txt': 'Some notes to count.' });
    const before = (await filesApi(server.url, key)).map((file) => file.id);
    const run = cli(['run', 'text-stats', '--file', path.join(dir, 'notes.txt')]);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toBe(
      'Text statistics (text-stats) does not read files, so it cannot be run with --file; nothing was uploaded.\n' +
        'Give it what it should work on as its input instead: an argument, --input-file PATH, or - for stdin.\n',
    );
    expect((await filesApi(server.url, key)).map((file) => file.id)).toEqual(before);
    const shown = cli(['skills', 'show', 'text-stats']);
    expect(await shown.exited).toBe(0);
    expect(shown.stdout()).not.toContain('--file');
    const csv = cli(['skills', 'show', 'csv-chart']);
    expect(await csv.exited).toBe(0);
    expect(csv.stdout()).toContain('--file PATH gives it a file');
  });
});

describe('skillet skills install', () => {
  it('packs a skill folder from where the person is, leaves out what a skill never needs, and runs it', async ({
    cli,
    signIn,
  }) => {
    await signIn();
    const skills = path.join(PROJECT_ROOT, 'test', 'skills', 'echo-summary');
    const dir = await folderWith({
      'SKILL.md': await readFile(path.join(skills, 'SKILL.md'), 'utf8'),
      'main.mjs': await readFile(path.join(skills, 'main.mjs'), 'utf8'),
    });
    await mkdir(path.join(dir, 'node_modules', 'left-pad'), { recursive: true });
    await writeFile(path.join(dir, 'node_modules', 'left-pad', 'index.js'), 'module.exports = 1;');
    await mkdir(path.join(dir, 'lib'));
    await writeFile(path.join(dir, 'lib', 'words.txt'), 'one two');
    await symlink('/etc/passwd', path.join(dir, 'secrets'));
    // The folder's name, made a slug: mkdtemp's letters come in both cases.
    const slug = path.basename(dir).toLowerCase();

    const installed = cli(['skills', 'install', dir]);
    expect(await installed.exited, installed.stderr()).toBe(0);
    expect(installed.stdout()).toBe(`Installed Echo Summary (${slug}, 3 files). Run it: skillet run ${slug} "<input>"\n`);
    expect(installed.stderr()).toBe('Left out: node_modules/\nLeft out: secrets (not a regular file)\n');

    const ran = cli(['run', slug, 'from my own folder', '--json']);
    expect(await ran.exited, ran.stderr()).toBe(0);
    expect(ran.stdout()).toContain('"summary":"from my own folder"');

    const again = cli(['skills', 'install', dir]);
    expect(await again.exited).toBe(1);
    expect(again.stderr()).toMatch(
      new RegExp(
        `\nThis workspace already has a skill called ${slug}\\. Install yours under a slug you choose: .* --slug NAME, .*\n$`,
      ),
    );
    const notFolder = cli(['skills', 'install', path.join(dir, 'main.mjs')]);
    expect(await notFolder.exited).toBe(2);
    expect(notFolder.stderr()).toContain("is not a folder. Give the folder that holds the skill's SKILL.md.");
  });

  it('a folder named like one of the server’s skills is told to take --slug, and installs under the one given', async ({
    cli,
    signIn,
  }) => {
    await signIn();
    const skills = path.join(PROJECT_ROOT, 'test', 'skills', 'echo-summary');
    const parent = await folderWith({});
    // Named as the public skill's folder would be: the server has a pdf skill of its own.
    const dir = path.join(parent, 'pdf');
    await mkdir(dir);
    for (const name of ['SKILL.md', 'main.mjs']) await writeFile(path.join(dir, name), await readFile(path.join(skills, name)));

    const refused = cli(['skills', 'install', dir]);
    expect(await refused.exited).toBe(1);
    expect(refused.stderr()).toBe(
      "pdf is the slug of one of this server's own skills, so yours needs another. Install yours under a slug you choose: skillet skills install FOLDER --slug NAME, or the slug field of the request.\n",
    );

    const installed = cli(['skills', 'install', dir, '--slug', 'my-pdf']);
    expect(await installed.exited, installed.stderr()).toBe(0);
    expect(installed.stdout()).toBe('Installed Echo Summary (my-pdf, 2 files). Run it: skillet run my-pdf "<input>"\n');
    const ran = cli(['run', 'my-pdf', 'my own pdf', '--json']);
    expect(await ran.exited, ran.stderr()).toBe(0);
    expect(ran.stdout()).toContain('"summary":"my own pdf"');

    const badSlug = cli(['skills', 'install', dir, '--slug', '../up']);
    expect(await badSlug.exited).toBe(1);
    expect(badSlug.stderr()).toContain('The slug you chose cannot name a skill.');
  });
});
