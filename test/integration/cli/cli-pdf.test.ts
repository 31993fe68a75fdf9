import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, onTestFinished } from 'vitest';
import { startFakeOpenAI } from '../../fakes/openai.js';
import { withCliServer } from '../../helpers/cli.js';
import { session } from '../../helpers/factories.js';
import { BUBBLEWRAP_HERE, KERNEL_LIMITS_HERE } from '../../helpers/sandbox.js';

const PYTHON = '/usr/bin/python3';
const HERE = BUBBLEWRAP_HERE && KERNEL_LIMITS_HERE && existsSync(PYTHON) && existsSync('/usr/bin/pdfinfo');

// The README's local model: any server speaking OpenAI's Chat Completions, priced at 0.
const localModel = await startFakeOpenAI();
afterAll(() => localModel.close());
const it = withCliServer({
  SIGNUP_CREDITS: '100',
  OPENAI_BASE_URL: localModel.url,
  OPENAI_API_KEY: 'local',
  OPENAI_MODEL: 'llama3.1',
  MODEL_PRICES: JSON.stringify({ 'llama3.1': { input: 0, output: 0 } }),
});

// biome-ignore lint/correctness/noUnusedFunctionParameters: Vitest sets up the fixtures a hook names.
it.beforeAll(({ build }) => {}, 120_000);

/** Two PDFs of 2 and 3 pages, made with reportlab, in a folder of the test's own. */
async function twoPdfs(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'skillet-cli-pdf-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const script = [
    'import sys',
    'from reportlab.pdfgen import canvas',
    'for name, pages in (("q3-report", 2), ("appendix", 3)):',
    '    c = canvas.Canvas(sys.argv[1] + "/" + name + ".pdf")',
    '    for p in range(pages):',
    '        c.drawString(72, 720, "%s %d" % (name, p + 1)); c.showPage()',
    '    c.save()',
  ].join('\n');
  execFileSync(PYTHON, ['-c', script, dir]);
  return dir;
}

/** What a model that follows the pdf skill does: its merge script, then a summary. */
function planMerge() {
  const merge =
    'python3 /mnt/skills/pdf/scripts/merge.py /mnt/session/outputs/merged.pdf /mnt/user-data/uploads/q3-report.pdf /mnt/user-data/uploads/appendix.pdf';
  localModel.plan(
    { kind: 'reply', blocks: [{ type: 'tool_use', id: 'm', name: 'bash', input: { command: merge } }] },
    { kind: 'reply', blocks: [{ type: 'text', text: 'Merged into merged.pdf: 5 pages, the report first.' }] },
  );
}

/** Downloads the newest artifact with the CLI and counts the merged PDF's pages with poppler. */
async function mergedPages(cli: Cli, dir: string) {
  const listed = cli(['artifacts', '--json']);
  expect(await listed.exited).toBe(0);
  const newest = (JSON.parse(listed.stdout()) as { id: string }[])[0];
  // A run that wrote one file has a single-file artifact: the download is that file.
  expect(await cli(['artifacts', 'download', String(newest?.id), '-o', path.join(dir, 'merged.pdf')]).exited).toBe(0);
  const info = execFileSync('/usr/bin/pdfinfo', [path.join(dir, 'merged.pdf')], { encoding: 'utf8' });
  return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]);
}

type Cli = (args: string[]) => { exited: Promise<number>; stdout(): string; stderr(): string };

/** `skillet run pdf --file … --file … TEXT` on two fresh PDFs, as the README has it; the model's first request and the folder. */
async function runPdf(cli: Cli, text: string) {
  const dir = await twoPdfs();
  const before = localModel.requests.length;
  planMerge();
  const files = ['q3-report.pdf', 'appendix.pdf'].flatMap((name) => ['--file', path.join(dir, name)]);
  const run = cli(['run', 'pdf', ...files, text]);
  expect(await run.exited, run.stderr()).toBe(0);
  return { dir, run, request: localModel.requests[before] };
}

/** The README's walk-through of the pdf skill, as a person would type it. */
describe.runIf(HERE)('the pdf skill from the CLI, as the README shows it', () => {
  it('merges two PDFs on a local OpenAI-compatible model', async ({ cli, signIn }) => {
    await signIn();
    const { dir, run, request } = await runPdf(cli, 'Merge these into one PDF, report first');
    expect(run.stdout()).toContain('Merged into merged.pdf: 5 pages');
    expect(request?.headers.authorization).toBe('Bearer local');
    expect(await mergedPages(cli, dir)).toBe(5);
  });

  it('merges them on the person’s own key', async ({ api, person, cli, signIn }) => {
    await signIn();
    const own = `sk-own-${'r'.repeat(24)}`;
    expect((await api.put('/api/v1/byok', { body: { key: own }, headers: session(person) })).status).toBe(200);
    const { dir, request } = await runPdf(cli, 'Merge these');
    expect(request?.headers.authorization).toBe(`Bearer ${own}`);
    expect(await mergedPages(cli, dir)).toBe(5);
    expect((await readFile(path.join(dir, 'merged.pdf'))).subarray(0, 5).toString()).toBe('%PDF-');
  });
});
