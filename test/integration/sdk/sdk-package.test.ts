import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect } from 'vitest';
import { PROJECT_ROOT } from '../../../src/paths.js';
import { createKey, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';

const run = promisify(execFile);

/** The package is the same on every backend: it is packed and tried once, in the plain SQLite run. */
const ONCE = process.env.TEST_DB === 'sqlite' && process.env.TEST_DISTRIBUTED !== '1';

const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' })
  // A project of someone else's that installed the packed SDK from its tarball.
  // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern.
  .extend('consumer', { scope: 'file' }, async ({}, { onCleanup }) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'skillet-sdk-consumer-'));
    onCleanup(() => rm(dir, { recursive: true, force: true }));
    const pack = async (folder: string) => {
      const packed = await run('npm', ['pack', folder, '--pack-destination', dir, '--json'], { cwd: PROJECT_ROOT });
      return path.join(dir, (JSON.parse(packed.stdout) as [{ filename: string }])[0].filename);
    };
    const tarball = await pack('./sdk');
    // The SDK's one dependency (its schemas are TypeBox's), as the registry would give it: the
    // copy this project installed, since no test reaches the registry.
    const typebox = await pack('./node_modules/typebox');
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball, typebox], { cwd: dir });
    return { dir, tarball };
  });

/** The README's example, as a person would copy it. */
async function readmeExample(): Promise<string> {
  const readme = await readFile(path.join(PROJECT_ROOT, 'sdk', 'README.md'), 'utf8');
  const block = /```js\n([\s\S]*?)```/.exec(readme);
  expect(block, 'the README has a JavaScript example').not.toBeNull();
  return block?.[1] as string;
}

/** tsc on one file of the consumer, with the settings a NodeNext project has; its output when it fails. */
async function typecheck(dir: string, file: string): Promise<{ ok: boolean; output: string }> {
  const tsc = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'tsc');
  const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'];
  try {
    await run(tsc, [...args, '--lib', 'es2023,dom', '--types', '', file], { cwd: dir });
    return { ok: true, output: '' };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

describe.runIf(ONCE)('the SDK as a package', () => {
  it('packs only its built modules, declarations and README', { timeout: 120_000 }, async ({ consumer }) => {
    const { stdout } = await run('tar', ['-tzf', consumer.tarball]);
    const files = stdout.trim().split('\n').sort();
    expect(files).toContain('package/dist/client.js');
    expect(files).toContain('package/dist/client.d.ts');
    expect(files).toContain('package/README.md');
    expect(files).toContain('package/dist/schemas/executions.js');
    expect(
      files.filter((file) => !/^package\/(dist\/(schemas\/)?[\w-]+\.(js|d\.ts)|README\.md|package\.json)$/.test(file)),
    ).toEqual([]);
  });

  it('runs the README’s example against a server with a key', { timeout: 120_000 }, async ({ consumer, api, server }) => {
    const person = await signUp(api);
    const { key } = await createKey(api, person);
    await writeFile(path.join(consumer.dir, 'example.mjs'), await readmeExample());
    const { stdout } = await run(process.execPath, ['example.mjs'], {
      cwd: consumer.dir,
      env: { ...process.env, SKILLET_URL: server.url, SKILLET_API_KEY: key },
    });
    expect(stdout).toMatch(/tick 1 of 3[\s\S]*tick 3 of 3[\s\S]*Done: /);
  });

  it('gives TypeScript its types through the exports, and they catch a wrong call', { timeout: 120_000 }, async ({
    consumer,
  }) => {
    const good = `import { SkilletClient } from '@skillet/sdk/client';
import { SkilletError } from '@skillet/sdk/errors';
import type { ExecutionEvent } from '@skillet/sdk/types';
const client = new SkilletClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'sklt_live_x' });
const created: Promise<{ id: string }> = client.executions.create('ticker', '1 10');
const events: AsyncGenerator<ExecutionEvent> = client.executions.events('an-id');
export const notFound = (error: unknown) => error instanceof SkilletError && error.status === 404;
export { created, events };
`;
    await writeFile(path.join(consumer.dir, 'good.ts'), good);
    expect(await typecheck(consumer.dir, 'good.ts')).toEqual({ ok: true, output: '' });

    await writeFile(path.join(consumer.dir, 'wrong.ts'), `${good}client.executions.create(42, 'input');\n`);
    const wrong = await typecheck(consumer.dir, 'wrong.ts');
    expect(wrong.ok).toBe(false);
    expect(wrong.output).toMatch(/wrong\.ts.*number.*string/);

    // The answer types are the schemas' Static<>: exact through TypeBox, not any.
    const derived = `import type { Me } from '@skillet/sdk/types';\nexport const tier: Me['tier'] = 3;\n`;
    await writeFile(path.join(consumer.dir, 'derived.ts'), derived);
    expect((await typecheck(consumer.dir, 'derived.ts')).output).toMatch(/derived\.ts.*number.*string/);
  });

  it('keeps what is not exported out of reach', { timeout: 120_000 }, async ({ consumer }) => {
    await writeFile(path.join(consumer.dir, 'deep.mjs'), "await import('@skillet/sdk/dist/client.js');\n");
    await expect(run(process.execPath, ['deep.mjs'], { cwd: consumer.dir })).rejects.toMatchObject({
      stderr: expect.stringContaining('ERR_PACKAGE_PATH_NOT_EXPORTED'),
    });
  });
});
