import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect } from 'vitest';
import { SkilletClient } from '../../../src/sdk/client.js';
import type { Manifest } from '../../../src/sdk/types.js';
import { sha256, unzip } from '../../helpers/artifacts.js';
import { buildProject } from '../../helpers/build.js';
import { runCli } from '../../helpers/cli.js';
import { tickerRunTypes } from '../../helpers/executions.js';
import { session, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';

const exec = promisify(execFile);

/** A folder of its own in the system's temporary folder, removed when the fixture is torn down. */
async function tempDir(prefix: string, onCleanup: (cleanup: () => Promise<void>) => void): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const it = withServer({
  SIGNUP_CREDITS: '0',
  ACTIVATION_POLL_INTERVAL_SECONDS: '1',
  RATE_LIMIT_REST_PER_MINUTE: '100000',
  RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000',
})
  .extend('person', { scope: 'file' }, ({ api }) => signUp(api))
  // The project compiled, for the CLI to run as a real process.
  // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern.
  .extend('build', { scope: 'file' }, async ({}, { onCleanup }) => {
    const build = await buildProject();
    onCleanup(() => build.remove());
    return build;
  })
  // Where the CLI keeps the credentials, and where tests write files.
  // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern.
  .extend('configDir', { scope: 'file' }, ({}, { onCleanup }) => tempDir('skillet-cli-config-', onCleanup))
  // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern.
  .extend('workDir', { scope: 'file' }, ({}, { onCleanup }) => tempDir('skillet-cli-work-', onCleanup))
  // The CLI's environment, one object for the file: a test may change it for a while.
  .extend('env', { scope: 'file' }, ({ server, configDir }) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SKILLET_CONFIG_DIR: configDir,
      SKILLET_URL: server.url,
      SKILLET_NO_BROWSER: '1',
      SKILLET_API_KEY: '',
    };
    delete env.SKILLET_API_KEY;
    return env;
  })
  .extend(
    'cli',
    { scope: 'file' },
    ({ build, env }) =>
      (args: string[], stdin?: string) =>
        runCli(build.dir, args, env, stdin),
  )
  // The signed-in person's key, as the CLI stored it.
  .extend(
    'storedKey',
    { scope: 'file' },
    ({ configDir }) =>
      async (): Promise<string> =>
        (JSON.parse(await readFile(path.join(configDir, 'credentials.json'), 'utf8')) as { apiKey: string }).apiKey,
  );

// Compiling the project takes longer than a test may: naming `build` here sets it up ahead,
// with a budget of its own.
// biome-ignore lint/correctness/noUnusedFunctionParameters: Vitest sets up the fixtures a hook names.
it.beforeAll(({ build }) => {}, 120_000);

describe('skillet login', () => {
  it('says to log in first, then pairs through device activation approved over the API, storing the key 0600', async ({
    api,
    person,
    cli,
    configDir,
    storedKey,
  }) => {
    const before = cli(['whoami']);
    expect(await before.exited).toBe(3);
    expect(before.stderr()).toContain('skillet login');

    const login = cli(['login', '--label', 'e2e terminal']);
    await login.waitFor(/enter the code ([A-Z2-9]{4}-[A-Z2-9]{4})/);
    const code = /enter the code ([A-Z2-9]{4}-[A-Z2-9]{4})/.exec(login.stderr())?.[1] as string;
    const approved = await api.post('/api/v1/activate/confirm', { body: { code }, headers: session(person) });
    expect(approved.status).toBe(200);
    expect(await login.exited).toBe(0);
    expect(login.stderr()).toContain('Signed in');
    const file = path.join(configDir, 'credentials.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await storedKey()).toMatch(/^sklt_live_/);

    const whoami = cli(['whoami', '--json']);
    expect(await whoami.exited).toBe(0);
    expect(JSON.parse(whoami.stdout())).toMatchObject({ user: { email: person.email }, credential: { type: 'api_key' } });
  }, 30_000);
});

describe('skillet run', () => {
  it('streams every ticker event live, says the run page’s address and ends with the cost', async ({
    server,
    api,
    cli,
    person,
  }) => {
    const run = cli(['run', 'ticker', '5 50']);
    expect(await run.exited).toBe(0);
    expect(run.stdout().trim().split('\n')).toEqual(['tick 1 of 5', 'tick 2 of 5', 'tick 3 of 5', 'tick 4 of 5', 'tick 5 of 5']);
    expect(run.stderr()).toContain('Done. Cost: 0 Ds.');
    // The address of the run's page in the app, from the server's public URL, on stderr.
    const page = /Run page: (\S+)/.exec(run.stderr())?.[1];
    const history = await api.get<{ items: { executionId: string; inputText: string }[] }>('/api/v1/executions?limit=1', {
      headers: session(person),
    });
    expect(page).toBe(`${server.url}/app/runs/${history.body.items[0]?.executionId}`);
    expect(history.body.items[0]?.inputText).toBe('5 50');
  });

  it('--json prints every event as a JSON line, in order, and reads the input from stdin', async ({ cli }) => {
    const run = cli(['run', 'ticker', '-', '--json'], '3 10');
    expect(await run.exited).toBe(0);
    const events = run
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; sequence: number });
    expect(events.map((event) => event.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events.map((event) => event.type)).toEqual(tickerRunTypes(3));
  });

  it('Ctrl-C interrupts the run and waits for it; the server shows it idle with stop reason interrupt', async ({
    server,
    cli,
    storedKey,
  }) => {
    const run = cli(['run', 'ticker', '100 100']);
    await run.waitFor('tick 2 of 100');
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(5);
    expect(run.stderr()).toContain('The run stopped: interrupt.');
    const sdk = new SkilletClient({ baseUrl: server.url, apiKey: await storedKey() });
    const [latest] = (await sdk.executions.history({ limit: 1 })).items;
    expect(latest?.status).toBe('idle');
    const events = [];
    // An idle execution's stream waits for its next run, so the reading stops at the interrupt.
    for await (const event of sdk.executions.events(latest?.executionId as string)) {
      events.push(event);
      if (event.type === 'session.status_idle') break;
    }
    expect(events.at(-1)).toMatchObject({ type: 'session.status_idle', payload: { stop_reason: { type: 'interrupt' } } });
  }, 30_000);

  it('rerun runs a completed execution again and follows it; --base-url wins over SKILLET_URL', async ({
    server,
    cli,
    env,
    storedKey,
  }) => {
    const detached = cli(['run', 'ticker', '1 1', '--detach']);
    expect(await detached.exited).toBe(0);
    const executionId = detached.stdout().trim();
    const sdk = new SkilletClient({ baseUrl: server.url, apiKey: await storedKey() });
    for await (const _event of sdk.executions.events(executionId)) {
      // Drained: the run is over once the stream ends.
    }
    const saved = env.SKILLET_URL;
    env.SKILLET_URL = 'http://127.0.0.1:9';
    try {
      const rerun = cli(['--base-url', server.url, 'rerun', executionId, '2 1']);
      expect(await rerun.exited).toBe(0);
      expect(rerun.stdout().trim().split('\n')).toEqual(['tick 1 of 2', 'tick 2 of 2']);
      const unreachable = cli(['balance']);
      expect(await unreachable.exited).toBe(1);
      expect(unreachable.stderr()).toContain('Could not reach the server');
    } finally {
      env.SKILLET_URL = saved;
    }
  });

  it('--detach prints the execution id and returns', async ({ cli }) => {
    const run = cli(['run', 'ticker', '1 1', '--detach']);
    expect(await run.exited).toBe(0);
    expect(run.stdout().trim()).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('credits and artifacts through the CLI', () => {
  it('402 says how to buy; buy and pay; then a priced run leaves an artifact that downloads identical to its manifest', async ({
    cli,
    workDir,
  }) => {
    const refused = cli(['run', 'markdown-to-html', '# Hi']);
    expect(await refused.exited).toBe(4);
    expect(refused.stderr()).toContain('skillet buy');

    const buy = cli(['buy', 'pack_100']);
    expect(await buy.exited).toBe(0);
    const checkoutUrl = buy.stdout().trim();
    expect((await fetch(`${checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    const balance = cli(['balance', '--json']);
    expect(await balance.exited).toBe(0);
    expect(JSON.parse(balance.stdout())).toMatchObject({ balance: 100 });

    const run = cli(['run', 'markdown-to-html', '# Downloaded\n\nWith *style*.']);
    expect(await run.exited).toBe(0);
    const artifactId = /Artifact ([0-9a-f-]{36})/.exec(run.stderr())?.[1] as string;
    expect(artifactId).toBeDefined();
    const output = path.join(workDir, 'site.zip');
    const download = cli(['artifacts', 'download', artifactId, '-o', output]);
    expect(await download.exited).toBe(0);
    const get = cli(['artifacts', 'get', artifactId]);
    expect(await get.exited).toBe(0);
    const manifest = (JSON.parse(get.stdout()) as { manifest: Manifest }).manifest;
    const entries = await unzip(await readFile(output));
    expect([...entries.keys()]).toEqual(manifest.files.map((file) => file.path));
    for (const file of manifest.files) {
      const data = entries.get(file.path) as Buffer;
      expect([data.length, `sha256:${sha256(data)}`]).toEqual([file.size, file.checksum]);
    }

    const transactions = cli(['transactions', '--json']);
    expect(await transactions.exited).toBe(0);
    expect((JSON.parse(transactions.stdout()) as { amount: number }[]).map((entry) => entry.amount)).toEqual([-1, 100]);
    const removed = cli(['artifacts', 'rm', artifactId]);
    expect(await removed.exited).toBe(0);
    const gone = cli(['artifacts', 'get', artifactId]);
    expect(await gone.exited).toBe(1);
    expect(gone.stderr()).toBe('Artifact not found\n');
  }, 30_000);
});

describe('the terminal', () => {
  it('shows `skillet run ticker "5 200"` live inside tmux', async ({ server, configDir, build }) => {
    const name = `skillet-${process.pid}`;
    const command = [
      `SKILLET_CONFIG_DIR=${configDir}`,
      `SKILLET_URL=${server.url}`,
      'SKILLET_NO_BROWSER=1',
      process.execPath,
      path.join(build.dir, 'src/cli/main.js'),
      'run ticker "5 200"',
      '; sleep 30',
    ].join(' ');
    await exec('tmux', ['new-session', '-d', '-s', name, '-x', '100', '-y', '20', command]);
    try {
      const screen = async () => (await exec('tmux', ['capture-pane', '-p', '-t', name])).stdout;
      let seen = '';
      for (let attempt = 0; attempt < 100 && !seen.includes('tick 3 of 5'); attempt++) {
        seen = await screen();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // Live: the third tick is on screen while the run still goes.
      expect(seen).toContain('tick 3 of 5');
      expect(seen).not.toContain('Done.');
      for (let attempt = 0; attempt < 100 && !seen.includes('Done.'); attempt++) {
        seen = await screen();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(seen).toContain('tick 5 of 5');
      expect(seen).toContain('Done. Cost: 0 Ds.');
    } finally {
      await exec('tmux', ['kill-session', '-t', name]).catch(() => undefined);
    }
  }, 30_000);
});
