import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../src/paths.js';

const run = promisify(execFile);

/**
 * Compiles the project into a folder of its own inside the project (so the compiled code
 * resolves the project's node_modules), for tests that run it as real processes.
 */
export async function buildProject(): Promise<{ dir: string; remove(): Promise<void> }> {
  await mkdir(path.join(PROJECT_ROOT, '.test-build'), { recursive: true });
  const dir = await mkdtemp(path.join(PROJECT_ROOT, '.test-build', 'build-'));
  const tsc = path.join(PROJECT_ROOT, 'node_modules/typescript/bin/tsc');
  await run(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', dir], { cwd: PROJECT_ROOT });
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
