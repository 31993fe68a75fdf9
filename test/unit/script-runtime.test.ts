import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import jsqr from 'jsqr';
import { PNG } from 'pngjs';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BUILTIN_SKILLS_DIR, PROJECT_ROOT } from '../../src/paths.js';
import type { SkillSandbox } from '../../src/ports/sandbox.js';
import type { SkillMessage } from '../../src/runtime/protocol.js';
import { startScript } from '../../src/runtime/script/script-runtime.js';
import { detectSandbox } from '../../src/sandbox/sandbox.js';
import type { RunLimits } from '../../src/sandbox/types.js';
import { loadSkillRegistry, type SkillRegistry } from '../../src/skills/registry.js';

const LIMITS: RunLimits = {
  timeoutMs: 10_000,
  memoryMb: 64,
  cpuSeconds: 30,
  outputLimitBytes: 10 * 1024 * 1024,
  outputFileLimit: 100,
  lineLimitBytes: 1024 * 1024,
  eventBytesPerRun: 8 * 1024 * 1024,
  // Threads count where the kernel holds the cap: a Node skill has about 11.
  processLimit: 64,
};
let registry: SkillRegistry;
// The test skills are not built in: they run in the sandbox where it works, else unconfined.
let sandbox: SkillSandbox;
let outputDir: string;

beforeAll(async () => {
  const loaded = await loadSkillRegistry({ builtIn: BUILTIN_SKILLS_DIR, extra: path.join(PROJECT_ROOT, 'test/skills') });
  expect(loaded.problems).toEqual([]);
  registry = loaded.registry;
  const here = await detectSandbox('auto');
  sandbox = here.kind === 'bwrap' ? here : await detectSandbox('none');
});
afterEach(async () => {
  if (outputDir) await rm(outputDir, { recursive: true, force: true });
});

async function run(slug: string, input: string, limits: Partial<RunLimits> = {}) {
  const skill = registry.get(slug);
  if (!skill) throw new Error(`no skill ${slug}`);
  outputDir = await mkdtemp(path.join(tmpdir(), 'skillet-run-'));
  const messages: SkillMessage[] = [];
  const started = await startScript(skill, input, outputDir, { limits: { ...LIMITS, ...limits }, sandbox }, async (message) => {
    messages.push(message);
  });
  return { started, messages };
}

describe('the script runtime', () => {
  it('runs ticker and relays its messages in order', async () => {
    const { started, messages } = await run('ticker', '3 10');
    expect(await started.finished).toEqual({ kind: 'completed' });
    expect(messages).toEqual([
      { type: 'message', text: 'tick 1 of 3' },
      { type: 'message', text: 'tick 2 of 3' },
      { type: 'message', text: 'tick 3 of 3' },
      { type: 'result', summary: '3 ticks, 10 ms apart' },
    ]);
  });

  it('leaves no interval running once its runs are over', async () => {
    // A watch of the pipes started by the exit event after the relay had ended was never
    // stopped: each run's process and buffers stayed in memory, ticking, for good.
    const live = new Set<NodeJS.Timeout>();
    const realSet = globalThis.setInterval;
    const realClear = globalThis.clearInterval;
    const setSpy = vi.spyOn(globalThis, 'setInterval').mockImplementation(((fn: () => void, ms?: number) => {
      const timer = realSet(fn, ms);
      live.add(timer);
      return timer;
    }) as typeof setInterval);
    const clearSpy = vi.spyOn(globalThis, 'clearInterval').mockImplementation(((timer?: NodeJS.Timeout) => {
      if (timer) live.delete(timer);
      realClear(timer);
    }) as typeof clearInterval);
    try {
      for (let round = 0; round < 5; round++) {
        const { started } = await run('ticker', '2 0');
        expect(await started.finished).toEqual({ kind: 'completed' });
      }
      // The process's exit can be heard after its run has finished.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(live.size).toBe(0);
    } finally {
      setSpy.mockRestore();
      clearSpy.mockRestore();
      for (const timer of live) realClear(timer);
    }
  });

  it('reads ticker input "N 0" as no wait at all, and falls back on defaults for words', async () => {
    const fast = await run('ticker', '300 0');
    const started = performance.now();
    expect(await fast.started.finished).toEqual({ kind: 'completed' });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(fast.messages.at(-1)).toEqual({ type: 'result', summary: '300 ticks, 0 ms apart' });
    const defaults = await run('ticker', 'two 0');
    expect(await defaults.started.finished).toEqual({ kind: 'completed' });
    expect(defaults.messages.at(-1)).toEqual({ type: 'result', summary: '10 ticks, 0 ms apart' });
  });

  it('lets text-stats write its file into the output folder', async () => {
    const { started, messages } = await run('text-stats', 'The cat sat. The cat ran away! Dogs bark.');
    expect(await started.finished).toEqual({ kind: 'completed' });
    expect(messages).toContainEqual({ type: 'file', path: 'stats.json', size: expect.any(Number) });
    const stats = JSON.parse(await readFile(path.join(outputDir, 'stats.json'), 'utf8'));
    expect(stats).toMatchObject({ words: 9, sentences: 3, characters: 41, readingTimeMinutes: 1 });
    expect(stats.topTerms[0]).toEqual({ term: 'cat', count: 2 });
  });

  it('lets markdown-to-html use a package and write a two-file site', async () => {
    const { started, messages } = await run(
      'markdown-to-html',
      '# Hello\n\nSome *text* and `code`.\n\n| a | b |\n|---|---|\n| 1 | 2 |',
    );
    expect(await started.finished).toEqual({ kind: 'completed' });
    expect(
      messages.filter((message) => message.type === 'file').map((message) => message.type === 'file' && message.path),
    ).toEqual(['index.html', 'style.css']);
    const page = await readFile(path.join(outputDir, 'index.html'), 'utf8');
    expect(page).toContain('<title>Hello</title>');
    expect(page).toContain('<h1>Hello</h1>');
    expect(page).toContain('<em>text</em>');
    expect(page).toContain('<table>');
  });

  it('lets csv-chart draw an SVG bar chart of the first numeric column', async () => {
    const csv = 'city,population,area\n"Lyon, FR",522000,47.9\n<Oslo>,709000,454\nPorto,232000,41.4\n';
    const { started } = await run('csv-chart', csv);
    expect(await started.finished).toEqual({ kind: 'completed' });
    const svg = await readFile(path.join(outputDir, 'chart.svg'), 'utf8');
    expect(svg.match(/<rect /g)).toHaveLength(3);
    expect(svg).toContain('>population</text>');
    expect(svg).toContain('Lyon, FR');
    expect(svg).toContain('&lt;Oslo&gt;');
    expect(svg).not.toContain('<Oslo>');
  });

  it('fails csv-chart clearly when no column is numeric', async () => {
    const { started } = await run('csv-chart', 'a,b\nx,y\n');
    expect(await started.finished).toEqual({ kind: 'failed', reason: expect.stringContaining('no column holds only numbers') });
  });

  it('lets qr-code write a PNG that decodes back to the input', async () => {
    const text = 'https://skillet.example.test/activate?code=WDJB-MJHT';
    // Node 24 peaks near 63 MiB resident on this skill (Node 20: 52 MiB): room above the 64 MiB of the others.
    const { started } = await run('qr-code', text, { memoryMb: 128 });
    expect(await started.finished).toEqual({ kind: 'completed' });
    const png = PNG.sync.read(await readFile(path.join(outputDir, 'qr.png')));
    // jsqr is CommonJS: its function sits under `default` as its types say.
    const decoded = jsqr.default(new Uint8ClampedArray(png.data), png.width, png.height);
    expect(decoded?.data).toBe(text);
  });

  it('lets skill-creator write a bundle that installs and runs', async () => {
    const { started } = await run(
      'skill-creator',
      'Summarise meeting notes\nTurns raw notes into a short summary with action items.',
    );
    expect(await started.finished).toEqual({ kind: 'completed' });
    const created = await loadSkillRegistry({ builtIn: outputDir });
    expect(created.problems).toEqual([]);
    const skill = created.registry.get('summarise-meeting-notes');
    expect(skill).toMatchObject({ name: 'Summarise meeting notes', runtime: 'script', entry: 'main.mjs', price: 0 });
    if (!skill) throw new Error('the created skill did not load');
    const scratch = await mkdtemp(path.join(tmpdir(), 'skillet-created-'));
    const messages: SkillMessage[] = [];
    const second = await startScript(skill, 'one two three', scratch, { limits: LIMITS, sandbox }, async (message) => {
      messages.push(message);
    });
    expect(await second.finished).toEqual({ kind: 'completed' });
    expect(messages).toContainEqual({ type: 'message', text: 'Received 3 words.' });
    await rm(scratch, { recursive: true, force: true });
  });

  it('ends a crash, a non-zero exit, garbage output and a hang as failed, with the reason', async () => {
    const crash = await run('crashes', '');
    expect(await crash.started.finished).toEqual({
      kind: 'failed',
      reason: 'the skill exited with code 1: Error: deliberate crash',
    });
    expect(crash.messages).toEqual([{ type: 'message', text: 'about to fail' }]);

    const garbage = await run('garbage', '');
    expect(await garbage.started.finished).toEqual({ kind: 'failed', reason: expect.stringContaining('this is not json') });

    const hang = await run('hangs', '', { timeoutMs: 300 });
    expect(await hang.started.finished).toEqual({ kind: 'failed', reason: expect.stringContaining('time limit of 300 ms') });
  });

  it('refuses a 50 MB file past the output limit', async () => {
    // Room for the 50 MB buffer itself: the memory limit must not be what stops it.
    const big = await run('big-file', '', { memoryMb: 256 });
    expect(await big.started.finished).toEqual({ kind: 'failed', reason: expect.stringContaining('output limit') });
  });

  it('hands over every line a skill printed before it exited, however long storing them takes', async () => {
    const skill = registry.get('chatty');
    if (!skill) throw new Error('no chatty skill');
    outputDir = await mkdtemp(path.join(tmpdir(), 'skillet-run-'));
    const received: SkillMessage[] = [];
    // A store slowed down by load: 300 lines at 10 ms each outlast the pipes' one-second grace threefold.
    const started = await startScript(skill, '300 40', outputDir, { limits: LIMITS, sandbox }, async (message) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      received.push(message);
    });
    expect(await started.finished).toEqual({ kind: 'completed' });
    expect(received).toHaveLength(300);
    expect(received.at(-1)).toEqual({ type: 'message', text: '300 '.padEnd(40, 'x') });
  });

  it('stops on request', async () => {
    const { started, messages } = await run('ticker', '100 50');
    while (messages.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    started.stop();
    expect(await started.finished).toEqual({ kind: 'stopped' });
    expect(messages.length).toBeLessThan(100);
  });

  it('ends a run stopped at any moment of its start, every time (a race run 30 times)', async () => {
    for (let attempt = 0; attempt < 30; attempt++) {
      const { started } = await run('ticker', '100 50');
      // From at once to well after the sandbox is up, so some stops land while bubblewrap sets up.
      await new Promise((resolve) => setTimeout(resolve, attempt % 10));
      started.stop();
      expect(await started.finished).toEqual({ kind: 'stopped' });
    }
  });

  it('keeps the skill inside its sandbox: no reads or writes elsewhere, no processes, no environment', async () => {
    const { started, messages } = await run('escapes', '');
    expect(await started.finished).toEqual({ kind: 'completed' });
    expect(messages.map((message) => (message.type === 'message' ? message.text : ''))).toEqual([
      expect.stringMatching(/^read \/etc\/hostname: refused/),
      expect.stringMatching(/^write \/tmp\/skillet-escape: refused/),
      expect.stringMatching(/^spawn a process: refused/),
      // bubblewrap sets PWD (the output folder) when it enters it; nothing else comes through.
      expect.stringMatching(/^environment keys: (none|PWD)$/),
    ]);
    expect(existsSync('/tmp/skillet-escape')).toBe(false);
  });
});
