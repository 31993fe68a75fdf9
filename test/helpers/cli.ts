import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import type { Env } from '../../src/config.js';
import { buildProject } from './build.js';
import { session, signUp } from './factories.js';
import { withServer } from './fixtures.js';

export interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Settles with the exit code. */
  exited: Promise<number>;
  /** Settles once stdout or stderr contains `text`. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
}

/**
 * Runs the built `skillet` CLI as a child process with the given environment. `stdin` is
 * written and ended; `'open'` leaves it open for the test to type into (`child.stdin`).
 */
export function runCli(buildDir: string, args: string[], env: NodeJS.ProcessEnv, stdin?: string): CliRun {
  const child = spawn(process.execPath, [path.join(buildDir, 'src/cli/main.js'), ...args], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const watchers: (() => void)[] = [];
  const notify = () => {
    for (const watcher of [...watchers]) watcher();
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    notify();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
    notify();
  });
  if (stdin === 'open') {
    // typed into by the test
  } else if (stdin !== undefined) child.stdin?.end(stdin);
  else child.stdin?.end();
  const exited = once(child, 'exit').then(([code]) => (code as number | null) ?? -1);
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(text, timeoutMs = 15_000) {
      const seen = () => (typeof text === 'string' ? (out + err).includes(text) : text.test(out + err));
      return new Promise<void>((resolve, reject) => {
        if (seen()) return resolve();
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${text}; got:\n${out}\n${err}`)), timeoutMs);
        const watcher = () => {
          if (!seen()) return;
          clearTimeout(timer);
          watchers.splice(watchers.indexOf(watcher), 1);
          resolve();
        };
        watchers.push(watcher);
      });
    },
  };
}

const USER_CODE = /enter the code ([A-Z2-9]{4}-[A-Z2-9]{4})/;

/**
 * `skillet login` through the device flow, the code approved by `approve` (over the API,
 * as a person in the app would): returns the finished run for its output.
 */
export async function loginWithCli(
  cli: (args: string[]) => CliRun,
  approve: (userCode: string) => Promise<void>,
  args: string[] = [],
): Promise<CliRun> {
  const login = cli(['login', ...args]);
  await login.waitFor(USER_CODE);
  await approve(USER_CODE.exec(login.stderr())?.[1] as string);
  await login.exited;
  return login;
}

/**
 * A server for the file, a person signed up on it, the project built, and `cli` running
 * the built CLI with a config folder of its own; `signIn` logs the CLI in through the
 * device flow (approved over the API) when it holds no key, and `storedKey` reads its key.
 */
export function withCliServer(env: Env = {}) {
  return (
    withServer({
      SIGNUP_CREDITS: '0',
      ACTIVATION_POLL_INTERVAL_SECONDS: '1',
      RATE_LIMIT_REST_PER_MINUTE: '100000',
      RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000',
      ...env,
    })
      .extend('person', { scope: 'file' }, ({ api }) => signUp(api))
      // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern.
      .extend('build', { scope: 'file' }, async ({}, { onCleanup }) => {
        const build = await buildProject();
        onCleanup(() => build.remove());
        return build;
      })
      // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern.
      .extend('configDir', { scope: 'file' }, async ({}, { onCleanup }) => {
        const dir = await mkdtemp(path.join(tmpdir(), 'skillet-cli-config-'));
        onCleanup(() => rm(dir, { recursive: true, force: true }));
        return dir;
      })
      .extend('env', { scope: 'file' }, ({ server, configDir }) => {
        const cliEnv: NodeJS.ProcessEnv = {
          ...process.env,
          SKILLET_CONFIG_DIR: configDir,
          SKILLET_URL: server.url,
          SKILLET_NO_BROWSER: '1',
        };
        delete cliEnv.SKILLET_API_KEY;
        delete cliEnv.SKILLET_AUTH_TOKEN;
        return cliEnv;
      })
      .extend(
        'cli',
        { scope: 'file' },
        ({ build, env }) =>
          (args: string[], stdin?: string) =>
            runCli(build.dir, args, env, stdin),
      )
      .extend('storedKey', { scope: 'file' }, ({ configDir }) => async (): Promise<string | undefined> => {
        try {
          return (JSON.parse(await readFile(path.join(configDir, 'credentials.json'), 'utf8')) as { apiKey: string }).apiKey;
        } catch {
          return undefined;
        }
      })
      .extend('signIn', { scope: 'file' }, ({ server, api, person, cli, storedKey }) => async (): Promise<CliRun | undefined> => {
        if (await storedKey()) return undefined;
        // Activations are limited per client address: the server's clock moves past the interval.
        server.clock.advance(server.config.rateLimits.activationCreateIntervalMs);
        const login = await loginWithCli(cli, async (code) => {
          const approved = await api.post('/api/v1/activate/confirm', { body: { code }, headers: session(person) });
          expect(approved.status).toBe(200);
        });
        expect(await login.exited).toBe(0);
        return login;
      })
  );
}
