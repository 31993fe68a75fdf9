import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../src/paths.js';
import {
  type Background,
  background,
  bash,
  commandLines,
  type ReadmeBlock,
  shellBlocks,
  until,
} from '../../helpers/readme-walk.js';
import { TEST_SANDBOX_SETTING } from '../../helpers/sandbox.js';
import { freePort } from '../../helpers/server.js';

/**
 * README.md walked as a newcomer would, on a fresh clone of this repository's HEAD: its
 * command blocks are read from the README itself, in order, so a README that stops working
 * fails here. Departures from a clean machine, each for speed or to share the machine:
 * node_modules is the checkout's (a symlink: `npm install` takes minutes), ports are free
 * ones (8080 and 9000 in the commands become them), HOME is a folder of the test's, warm
 * sandbox pools are off, password hashing is cheaper, and the sandbox setting is the one
 * the rest of the suite uses on this machine. `npm test` is not run from inside a test.
 */
const run = promisify(execFile);

// Its own project in vitest.config.ts (`readme`): alone and last, on SQLite, the README's database.
describe('the README on a fresh clone', () => {
  let work: string;
  let clone: string;
  let env: NodeJS.ProcessEnv;
  let baseUrl: string;
  let receiverPort: number;
  let readme: string;
  const running: Background[] = [];
  let server: Background | undefined;
  const stateFile = () => path.join(work, 'state.sh');

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'skillet-readme-'));
    clone = path.join(work, 'skillet');
    await run('git', ['clone', '-q', PROJECT_ROOT, clone]);
    await symlink(path.join(PROJECT_ROOT, 'node_modules'), path.join(clone, 'node_modules'));
    await mkdir(path.join(work, 'home'));
    readme = await readFile(path.join(clone, 'README.md'), 'utf8');
    const port = await freePort();
    receiverPort = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    // What a newcomer's shell would not have: the suite's own settings, and the folder the e2e
    // set-up builds the app into (WEB_BUILD_DIR, set in this process when the e2e project runs).
    const {
      DATA_DIR: _dataDir,
      DATABASE_URL: _databaseUrl,
      PUBLIC_URL: _publicUrl,
      WEB_BUILD_DIR: _webBuildDir,
      WEB_APP_DIR: _webAppDir,
      ...inherited
    } = process.env;
    env = {
      ...inherited,
      HOME: path.join(work, 'home'),
      PORT: String(port),
      SKILLET_URL: baseUrl,
      SKILL_SANDBOX: TEST_SANDBOX_SETTING,
      COMPUTER_POOL_SIZE: '0',
      SCRIPT_POOL_SIZE: '0',
      PASSWORD_HASH_LOG_N: '10',
      LOG_LEVEL: 'warn',
    };
  }, 120_000);

  afterAll(async () => {
    for (const process of running.reverse()) await process.stop();
    if (work) await rm(work, { recursive: true, force: true });
  }, 60_000);

  /** The README's commands with the ports of this test. */
  const localised = (code: string) =>
    code
      .replaceAll('127.0.0.1:8080', new URL(baseUrl).host)
      .replaceAll('.listen(9000)', `.listen(${receiverPort})`)
      .replaceAll('127.0.0.1:9000', `127.0.0.1:${receiverPort}`);

  /** `[VAR=value ...] npm start`, as the README writes it, run until stopped; answers once the sign-in page does. */
  async function startServer(line: string): Promise<Background> {
    expect(line).toMatch(/^(\w+=\S+ )*npm start$/);
    const started = background(line, clone, env);
    running.push(started);
    await until(
      () => `the server to answer (it printed: ${started.output()})`,
      async () => {
        if (started.child.exitCode !== null) throw new Error(`npm start ended: ${started.output()}`);
        const page = await fetch(`${baseUrl}/app/sign-in`).catch(() => undefined);
        const html = page?.ok ? await page.text() : '';
        // The app's page and the script that draws the sign-in form (the browser tests look at the form).
        const script = /src="(\/app\/assets\/index-[^"]+\.js)"/.exec(html)?.[1];
        return html.includes('<title>Skillet</title>') && script !== undefined && (await fetch(`${baseUrl}${script}`)).ok;
      },
      // The first start compiles the server and bundles the app: minutes on a loaded machine.
      600_000,
    );
    return started;
  }

  /** A block run in bash where the one before it left off: its variables come along. */
  async function runBlock(code: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const names = [...new Set([...code.matchAll(/^(\w+)=\$\(/gm)].map((match) => match[1]))];
    const script = `[ -f ${stateFile()} ] && . ${stateFile()}\n${localised(code)}\n${names.length > 0 ? `declare -p ${names.join(' ')} >> ${stateFile()}` : ''}`;
    const done = await bash(script, clone, env, 120_000);
    return done;
  }

  it('starts with the set-up block: the sign-in page answers', async () => {
    const [setUp, tests] = shellBlocks(readme, 'Set up', 'A first walk-through with curl');
    expect(setUp?.code.trim()).toBe('npm install && npm start');
    expect(tests?.code.trim()).toBe('npm test');
    server = await startServer('npm start');
  }, 660_000);

  it('walks the curl steps, 1 to 10', async () => {
    const blocks: ReadmeBlock[] = shellBlocks(readme, 'A first walk-through with curl', 'The same from the `skillet` CLI');
    let receiver: Background | undefined;
    for (const block of blocks) {
      const lines = commandLines(block.code);
      if (lines.length === 1 && lines[0]?.endsWith('npm start')) {
        // The README restarts the server with a setting: no build on the second start.
        const built = await stat(path.join(clone, 'dist', '.built'));
        await server?.stop();
        server = await startServer(lines[0]);
        expect((await stat(path.join(clone, 'dist', '.built'))).mtimeMs).toBe(built.mtimeMs);
        expect(server.output()).not.toContain('vite');
        continue;
      }
      if (block.code.includes('.listen(9000)')) {
        receiver = background(localised(block.code.trim()), clone, env);
        running.push(receiver);
        await until(
          'the receiver to listen',
          async () =>
            (await fetch(`http://127.0.0.1:${receiverPort}/`, { method: 'POST', body: 'ping' }).catch(() => undefined))?.ok ===
            true,
          30_000,
        );
        continue;
      }
      const { stdout, stderr } = await runBlock(block.code);
      expect(stderr, `step ${block.step}:\n${block.code}`).toBe('');
      if (block.step === '1') expect(stdout).toMatch(/^\S{20,}\n$/);
      if (block.step === '4') expect(stdout).toMatch(/^sklt_/);
      if (block.code.includes("'Prefer: wait'")) expect(stdout).toContain('"status":"completed"');
      if (block.code.includes('/stream-token')) {
        expect(stdout).toContain('execution.result');
        expect(stdout).toContain('session.status_idle');
      }
      if (block.step === '7') expect(stdout).toContain('"balance":100');
      if (block.step === '8') expect(stdout).toContain('"balance":99');
      const saved = /# saves "([^"]+)"/.exec(block.code)?.[1];
      if (saved) expect((await readdir(clone)).join('\n')).toContain(saved);
      if (block.step === '10' && block.code.includes('/deliveries')) {
        expect(stdout).toContain('"webhook.test"');
        await until(
          'the receiver to print the test event',
          async () => receiver?.output().includes('webhook.test') ?? false,
          30_000,
        );
      }
    }
    expect(receiver, 'the README starts a receiver for step 10').toBeDefined();
  }, 600_000);

  it('walks the CLI block by block, line by line', async () => {
    const [login, commands] = shellBlocks(readme, 'The same from the `skillet` CLI', 'Talking to the assistant');
    expect(commandLines(login?.code ?? '')).toEqual(['npm run -s skillet -- login']);
    const signingIn = background('npm run -s skillet -- login', clone, env);
    running.push(signingIn);
    let code = '';
    await until(
      'the CLI to print a code',
      async () => {
        code = /\b([A-Z0-9]{4}-[A-Z0-9]{4})\b/.exec(signingIn.output())?.[1] ?? '';
        return code !== '';
      },
      120_000,
    );
    // The README's way of approving it from a terminal, with the session token of step 1.
    const confirm = /`(curl -s -X POST http:\/\/127\.0\.0\.1:8080\/api\/v1\/activate\/confirm[^`]+)`/.exec(readme)?.[1];
    expect(confirm).toBeDefined();
    await runBlock((confirm ?? '').replace('ABCD-EFGH', code));
    await until('the CLI to sign in', async () => signingIn.output().includes('Signed in as ada@example.com'), 60_000);

    await cp(path.join(PROJECT_ROOT, 'test', 'skills', 'echo-summary'), path.join(clone, 'my-skill'), { recursive: true });
    await writeFile(path.join(clone, 'data.csv'), 'region,revenue\nnorth,3\nsouth,5\n');
    await writeFile(path.join(clone, 'notes.txt'), 'Revenue by region.\n');
    const events = /`events\.json` above holds `([^`]+)`/.exec(readme)?.[1];
    expect(events).toBeDefined();
    await writeFile(path.join(clone, 'events.json'), events ?? '');
    const found: Record<string, string> = {};
    for (const line of commandLines(commands?.code ?? '')) {
      let command = line
        .replace('<executionId>', found.executionId ?? '<executionId>')
        .replace('executions/ID/', `executions/${found.created ?? 'ID'}/`)
        .replace('run SLUG ', 'run csv-chart ')
        // At a terminal it asks first; the test has none, so it answers the question up front.
        .replace(/^(npm run -s skillet -- skills remove \S+)$/, '$1 --yes');
      if (command.includes('<artifactId>')) {
        const listed = await runBlock('npm run -s skillet -- artifacts --json');
        const id = /"id":\s*"([^"]+)"/.exec(listed.stdout)?.[1] ?? '';
        command = command.replace('<artifactId>', id);
      }
      const { code: exit, stdout, stderr } = await runBlock(command);
      expect(exit, `${command}\n${stdout}\n${stderr}`).toBe(0);
      if (command.includes('--detach')) found.executionId = stdout.trim().split('\n').at(-1) ?? '';
      if (command.includes('api POST executions -f')) found.created = /"id":\s*"([^"]+)"/.exec(stdout)?.[1] ?? stdout.trim();
      if (command.endsWith('-- subscribe')) {
        const checkout = /https?:\/\/\S+/.exec(stdout)?.[0];
        expect(checkout, stdout).toBeDefined();
        const paid = await fetch(`${checkout}/pay`, { method: 'POST', redirect: 'manual' });
        expect(paid.status).toBeLessThan(400);
      }
      const saved = /-o (\S+)$/.exec(command)?.[1];
      if (saved) await stat(path.join(clone, saved));
    }
  }, 600_000);
  it('runs the CLI outside the checkout as the README says: npm link, then skillet', async () => {
    const elsewhere = path.join(work, 'elsewhere');
    await mkdir(elsewhere);
    // What the README warns of: npm run outside the checkout finds no script and says nothing.
    const outside = await bash('npm run -s skillet -- --version', elsewhere, env);
    expect(outside.code).toBe(254);
    expect(readme).toContain('run `npm link` once in the checkout');
    const global = { ...env, npm_config_prefix: path.join(work, 'global') };
    const linked = await bash('npm link --no-audit --no-fund', clone, global);
    expect(linked.code, linked.stderr).toBe(0);
    const version = await bash(`PATH=${path.join(work, 'global', 'bin')}:$PATH skillet --version`, elsewhere, env);
    expect(version.code, version.stderr).toBe(0);
  }, 120_000);
  it('builds again on the next start after a source changes', async () => {
    const built = (await stat(path.join(clone, 'dist', '.built'))).mtimeMs;
    await server?.stop();
    const later = new Date(Date.now() + 1000);
    await utimes(path.join(clone, 'src', 'main.ts'), later, later);
    server = await startServer('npm start');
    expect((await stat(path.join(clone, 'dist', '.built'))).mtimeMs).toBeGreaterThan(built);
  }, 660_000);
  it('knows every CLI command the README shows anywhere', async () => {
    const shown = new Set<string>();
    for (const match of readme.matchAll(/(?:npm run -s skillet --|npx skillet|`skillet) ((?:[a-z][a-z-]*)(?: [a-z][a-z-]*)*)/g)) {
      shown.add(match[1] ?? '');
    }
    expect(shown.size).toBeGreaterThan(20);
    for (const command of shown) {
      // `run pdf --help` is run's help: words after the command that are arguments do no harm.
      const help = await bash(`node dist/src/cli/main.js ${command} --help`, clone, env, 60_000);
      expect(help.code, `skillet ${command} --help:\n${help.stdout}${help.stderr}`).toBe(0);
      // An unknown command would print the top-level help instead of its own.
      expect(help.stdout, `skillet ${command} --help`).toContain(`Usage: skillet ${command.split(' ')[0]} `);
    }
  }, 300_000);
});
