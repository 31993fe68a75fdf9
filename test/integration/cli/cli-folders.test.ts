import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { runCli, withCliServer } from '../../helpers/cli.js';

const it = withCliServer();

// Compiling the project takes longer than a test may: naming `build` here sets it up ahead.
// biome-ignore lint/correctness/noUnusedFunctionParameters: Vitest sets up the fixtures a hook names.
it.beforeAll(({ build }) => {}, 120_000);

describe('paths through `npm run skillet`', () => {
  it("reads a relative path from the person's folder (INIT_CWD), not the project root npm runs in", async ({
    build,
    env,
    signIn,
  }) => {
    await signIn();
    const folder = await mkdtemp(path.join(tmpdir(), 'skillet-person-'));
    try {
      await writeFile(path.join(folder, 'ticks.txt'), '2 10');
      const throughNpm = { ...env, INIT_CWD: folder, npm_lifecycle_event: 'skillet' };
      const run = runCli(build.dir, ['run', 'ticker', '--input-file', 'ticks.txt', '--json'], throughNpm);
      expect(await run.exited, run.stderr()).toBe(0);
      const first = JSON.parse(run.stdout().split('\n')[0] as string) as {
        type: string;
        payload: { content: { text: string }[] };
      };
      expect(first).toMatchObject({ type: 'user.message', payload: { content: [{ text: '2 10' }] } });

      // Outside npm, INIT_CWD means nothing: the path is the process's own.
      const direct = runCli(build.dir, ['run', 'ticker', '--input-file', 'ticks.txt'], { ...env, INIT_CWD: folder });
      expect(await direct.exited).toBe(1);
      expect(direct.stderr()).toContain('ticks.txt');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }, 30_000);
});
