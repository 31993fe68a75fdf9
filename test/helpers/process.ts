import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';
import { buildProject } from './build.js';
import { createSchema, engineUnderTest, postgresUrl } from './database.js';
import { removeDataFolder, TEST_SANDBOX_SETTING } from './sandbox.js';
import { freePort } from './server.js';

/**
 * The built server (`node dist/src/main.js`) as real processes, one at a time, on one
 * data folder and database, so a test can kill one with SIGKILL and start the next.
 */
export interface ServerProcesses {
  baseUrl: string;
  dataDir: string;
  start(): Promise<ChildProcess>;
  cleanUp(): Promise<void>;
}

export async function serverProcesses(name: string, settings: NodeJS.ProcessEnv = {}): Promise<ServerProcesses> {
  const build = await buildProject();
  const dataDir = await mkdtemp(path.join(tmpdir(), `skillet-${name}-`));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    PASSWORD_HASH_LOG_N: '10',
    DATABASE_URL: '',
    SKILLS_DIR: path.join(PROJECT_ROOT, 'test', 'skills'),
    SKILL_SANDBOX: TEST_SANDBOX_SETTING,
    // As TEST_ENV: no warm sandboxes unless the suite asks.
    COMPUTER_POOL_SIZE: '0',
    SCRIPT_POOL_SIZE: '0',
    ...settings,
  };
  let dropSchema: () => Promise<void> = async () => undefined;
  if (engineUnderTest() === 'postgres') {
    const schema = await createSchema(name.replace(/\W/g, '_'));
    env.DATABASE_URL = `${postgresUrl()}?options=${encodeURIComponent(`-c search_path=${schema.name}`)}`;
    dropSchema = schema.drop;
  }
  const running = new Set<ChildProcess>();

  /** Starts a server process and waits until it answers. */
  async function start(): Promise<ChildProcess> {
    const child = spawn(process.execPath, [path.join(build.dir, 'src/main.js')], { env, stdio: 'ignore' });
    running.add(child);
    child.once('exit', () => running.delete(child));
    for (let attempt = 0; attempt < 600; attempt++) {
      const up = await fetch(`${baseUrl}/openapi.json`).then(
        (response) => response.ok,
        () => false,
      );
      if (up) return child;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the server did not start');
  }

  async function cleanUp(): Promise<void> {
    for (const child of running) child.kill('SIGKILL');
    await build.remove();
    await removeDataFolder(dataDir);
    await dropSchema();
  }

  return { baseUrl, dataDir, start, cleanUp };
}
