import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Config } from '../../src/config.js';
import { loadConfig } from '../../src/config-load.js';
import { BUILTIN_SKILLS_DIR, PROJECT_ROOT } from '../../src/paths.js';
import type { Skill } from '../../src/ports/skills.js';
import type { SkillMessage } from '../../src/runtime/protocol.js';
import type { WarmScript } from '../../src/runtime/runtime.js';
import { ScriptPool } from '../../src/runtime/script/script-pool.js';
import { startScript } from '../../src/runtime/script/script-runtime.js';
import { detectSandbox } from '../../src/sandbox/sandbox.js';
import { loadSkillRegistry, type SkillRegistry } from '../../src/skills/registry.js';
import { removeDataFolder } from '../helpers/sandbox.js';
import { TEST_ENV } from '../helpers/server.js';

const sandbox = await detectSandbox('auto');
const MIB = 1024 * 1024;

let registry: SkillRegistry;
let dataDir: string;
let config: Config;
let freeMemory: number;
const pools: ScriptPool[] = [];

beforeAll(async () => {
  const loaded = await loadSkillRegistry({ builtIn: BUILTIN_SKILLS_DIR, extra: path.join(PROJECT_ROOT, 'test/skills') });
  registry = loaded.registry;
});

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'script-pool-'));
  config = await loadConfig({
    ...TEST_ENV,
    DATA_DIR: dataDir,
    SKILL_MEMORY_MB: '64',
    EXECUTION_TIMEOUT_MS: '10000',
    SCRIPT_POOL_SIZE: '2',
  });
  freeMemory = 64 * 1024 * MIB;
});

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  await removeDataFolder(dataDir);
});

function skill(slug: string): Skill {
  const found = registry.get(slug);
  if (!found) throw new Error(`no skill ${slug}`);
  return found;
}

async function filledPool(): Promise<ScriptPool> {
  const log = { info: () => undefined, warn: () => undefined };
  const pool = new ScriptPool({ sandbox, config, log, clock: new ManualClock(), freeMemory: () => freeMemory });
  pools.push(pool);
  await pool.tend();
  return pool;
}

/** One run of `slug` on a warm sandbox taken from `pool`, as the runner hands it over. */
async function runWarm(pool: ScriptPool, slug: string, input: string) {
  const warm = await pool.takeFor(skill(slug), undefined);
  if (!warm) throw new Error('the pool had no warm sandbox');
  const messages: SkillMessage[] = [];
  const started = await startScript(
    skill(slug),
    input,
    warm.output.dir,
    { limits: config.executions, sandbox, warm },
    async (message) => {
      messages.push(message);
    },
  );
  return { warm, started, messages };
}

const texts = (messages: SkillMessage[]) => messages.map((message) => (message.type === 'message' ? message.text : ''));

describe.runIf(sandbox.kind === 'bwrap')('script skills on warm sandboxes', () => {
  it('runs a skill on a sandbox started before the skill was known, its messages in order and its files in the output', async () => {
    const pool = await filledPool();
    expect(pool.size).toBe(2);
    const { warm, started, messages } = await runWarm(pool, 'ticker', '3 10');
    expect(await started.finished).toEqual({ kind: 'completed' });
    expect(texts(messages).slice(0, 3)).toEqual(['tick 1 of 3', 'tick 2 of 3', 'tick 3 of 3']);
    const written = await runWarm(pool, 'writer', JSON.stringify({ files: [{ path: 'a/b.txt', text: 'hello' }] }));
    expect(await written.started.finished).toEqual({ kind: 'completed' });
    expect(written.warm.output.dir).not.toBe(warm.output.dir);
    expect(written.messages).toContainEqual({ type: 'file', path: 'a/b.txt', size: 5 });
    expect(await readFile(path.join(written.warm.output.dir, 'a/b.txt'), 'utf8')).toBe('hello');
    // Shared packages resolve from the shelf as from the skill's own folder: qr-code imports one.
    await pool.tend();
    const qr = await runWarm(pool, 'qr-code', 'https://example.test');
    expect(await qr.started.finished).toEqual({ kind: 'completed' });
    await Promise.all([warm, written.warm, qr.warm].map((taken) => taken.output.release()));
  });

  it('keeps the skill inside its sandbox exactly as one started for it', async () => {
    const pool = await filledPool();
    const { warm, started, messages } = await runWarm(pool, 'escapes', '');
    expect(await started.finished).toEqual({ kind: 'completed' });
    expect(texts(messages)).toEqual([
      expect.stringMatching(/^read \/etc\/hostname: refused/),
      expect.stringMatching(/^write \/tmp\/skillet-escape: refused/),
      expect.stringMatching(/^spawn a process: refused/),
      expect.stringMatching(/^environment keys: (none|PWD)$/),
    ]);
    expect(existsSync('/tmp/skillet-escape')).toBe(false);
    await warm.output.release();
  });

  it('never hands one sandbox to two runs, however many ask at once', async () => {
    for (let round = 0; round < 5; round++) {
      const pool = await filledPool();
      const given = (await Promise.all(Array.from({ length: 6 }, () => pool.takeFor(skill('ticker'), undefined)))).filter(
        (warm): warm is WarmScript => warm !== undefined,
      );
      expect(given).toHaveLength(2);
      expect(new Set(given.map((warm) => warm.child.pid)).size).toBe(2);
      for (const warm of given) {
        await warm.release();
        await warm.output.release();
      }
      await pool.close();
    }
  });

  it('serves no run with files, and no agent skill', async () => {
    const pool = await filledPool();
    const uploads = { dir: dataDir, files: [] };
    expect(await pool.takeFor(skill('ticker'), uploads)).toBeUndefined();
    expect(await pool.takeFor(skill('agent-plain'), undefined)).toBeUndefined();
    expect(pool.size).toBe(2);
  });

  it('replaces a sandbox that died while it waited, and holds fewer when memory is short', async () => {
    const pool = await filledPool();
    const warm = await pool.takeFor(skill('ticker'), undefined);
    expect(warm).toBeDefined();
    if (!warm) return;
    // Killed before its run begins: the run fails as the skill's process ending, not hangs.
    warm.child.kill('SIGKILL');
    const started = await startScript(
      skill('ticker'),
      '1 1',
      warm.output.dir,
      { limits: config.executions, sandbox, warm },
      async () => undefined,
    );
    expect(await started.finished).toMatchObject({ kind: 'failed' });
    await warm.output.release();
    await pool.tend();
    expect(pool.size).toBe(2);
    freeMemory = 1.5 * 64 * MIB;
    await pool.tend();
    expect(pool.size).toBe(0);
  });

  it('stops a run at once while the skill starts on its warm sandbox', async () => {
    const pool = await filledPool();
    const { warm, started } = await runWarm(pool, 'ticker', '100 50');
    started.stop();
    expect(await started.finished).toEqual({ kind: 'stopped' });
    expect(warm.child.exitCode !== null || warm.child.signalCode !== null).toBe(true);
    await warm.output.release();
  });
});
