import path from 'node:path';
import { describe, expect, it as plainIt } from 'vitest';
import { doctorReport, doctorText } from '../../src/cli/doctor.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { findComputerImage } from '../../src/sandbox/computer/computer-image.js';
import { versionAtLeast } from '../../src/sandbox/computer/computer-software.js';
import { done, eventOf, resultsSent, runAgent, stopReasonOf, use, withAgentServer } from '../helpers/agent.js';
import { bytesOf } from '../helpers/artifacts.js';
import { session, type TestUser } from '../helpers/factories.js';
import { seriesValue } from '../helpers/metrics.js';
import { BUBBLEWRAP_HERE, KERNEL_LIMITS_HERE } from '../helpers/sandbox.js';
import type { StreamEvent } from '../helpers/sse.js';

/** The image store `.ci/run` builds (skillet computer build --dir), where this suite runs. */
const IMAGE_DIR = process.env.SKILLET_TEST_COMPUTER_IMAGE;
if (!IMAGE_DIR)
  console.warn('\n[skillet] SKILLET_TEST_COMPUTER_IMAGE is not set: the computer image compatibility suite is skipped.\n');

const METRICS = 'compat-metrics-token-0123456789';
const it = withAgentServer({
  COMPUTER_IMAGE_DIR: IMAGE_DIR ?? '',
  SKILLS_DIR: path.join(PROJECT_ROOT, 'test', 'compat', 'skills'),
  COMPUTER_POOL_SIZE: '1',
  EXECUTION_TIMEOUT_MS: '240000',
  SKILL_MEMORY_MB: '2048',
  SKILL_WORKSPACE_LIMIT_BYTES: String(1024 * 1024 * 1024),
  METRICS_TOKEN: METRICS,
});

/** LibreOffice and Chromium start in seconds, not milliseconds. */
const SLOW = 180_000;
const skill = (slug: string) => `/mnt/skills/${slug}`;

/** Downloads one file of a run's artifact. */
async function artifactFile(server: { url: string }, person: TestUser, events: StreamEvent[], name: string): Promise<Buffer> {
  const artifactId = String(eventOf(events, 'execution.result')?.payload.artifactId);
  const file = await bytesOf(`${server.url}/api/v1/artifacts/${artifactId}/file/${name}`, session(person));
  expect(file.status, `${name} in the artifact`).toBe(200);
  return file.body;
}

/**
 * Public Agent Skills assume a computer with current document, image and browser tooling. Each
 * test here is a skill of our own in the open format, run through the real server on the
 * computer image, with a scripted model issuing the commands its SKILL.md prescribes.
 */
describe.runIf(IMAGE_DIR && BUBBLEWRAP_HERE && KERNEL_LIMITS_HERE)('public-skill workflows on the computer image', () => {
  it(
    'fills a PDF form with pypdf 5 (inherited field types, indirect objects, pypdf.annotations)',
    async ({ api, server, anthropic, person }) => {
      const at = anthropic.requests.length;
      const scripts = `${skill('compat-pdf-form')}/scripts`;
      anthropic.plan(
        use('make', 'bash', { command: `python ${scripts}/make_form.py form.pdf && python ${scripts}/list_fields.py form.pdf` }),
        use('fill', 'write', { path: 'values.json', content: '{"name": "Ada Lovelace", "city": "London"}' }),
        use('check', 'bash', {
          command: `python ${scripts}/fill_form.py form.pdf values.json /mnt/session/outputs/filled.pdf && python ${scripts}/list_fields.py /mnt/session/outputs/filled.pdf`,
        }),
        done,
      );
      const events = await runAgent(api, person, 'compat-pdf-form', 'Fill in the form for Ada in London.');
      expect(stopReasonOf(events)).toBe('end_turn');
      const sent = resultsSent(anthropic, at);
      expect(sent.get('make')?.text).toMatch(/name: \/Tx = \ncity: \/Tx = \nsubscribe: \/Btn = \/Off\n/);
      expect(sent.get('check')?.text).toMatch(/filled 2 fields[\s\S]*name: \/Tx = Ada Lovelace\ncity: \/Tx = London/);
      expect((await artifactFile(server, person, events, 'filled.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
    },
    SLOW,
  );

  it(
    'recalculates formulas with headless LibreOffice and reads the values back',
    async ({ api, server, anthropic, person }) => {
      const at = anthropic.requests.length;
      const scripts = `${skill('compat-xlsx-recalc')}/scripts`;
      anthropic.plan(
        use('make', 'bash', { command: `python ${scripts}/make_book.py book.xlsx` }),
        use('calc', 'bash', { command: 'soffice --headless --calc --convert-to xlsx --outdir recalculated book.xlsx' }),
        use('read', 'bash', {
          command: `python ${scripts}/read_values.py recalculated/book.xlsx && cp recalculated/book.xlsx /mnt/session/outputs/`,
        }),
        done,
      );
      const events = await runAgent(api, person, 'compat-xlsx-recalc', 'Total the budget.');
      const sent = resultsSent(anthropic, at);
      expect(sent.get('calc')?.isError, sent.get('calc')?.text).toBe(false);
      expect(sent.get('read')?.text).toMatch(
        /B1 =SUM\(A1:A3\) -> 245\nB2 =B1\*2 -> 490\nB3 =ROUND\(AVERAGE\(A1:A3\),2\) -> 81\.67/,
      );
      expect((await artifactFile(server, person, events, 'book.xlsx')).subarray(0, 2).toString()).toBe('PK');
    },
    SLOW,
  );

  it(
    'adds a tracked change and a comment to a docx through its XML with defusedxml, and pandoc reads them',
    async ({ api, server, anthropic, person }) => {
      const at = anthropic.requests.length;
      const scripts = `${skill('compat-docx-review')}/scripts`;
      anthropic.plan(
        use('make', 'bash', { command: `python ${scripts}/make_doc.py draft.docx` }),
        use('review', 'bash', {
          command: `python ${scripts}/add_review.py draft.docx /mnt/session/outputs/reviewed.docx && python ${scripts}/check_review.py /mnt/session/outputs/reviewed.docx`,
        }),
        use('pandoc', 'bash', { command: 'pandoc --track-changes=all /mnt/session/outputs/reviewed.docx -t markdown' }),
        done,
      );
      const events = await runAgent(api, person, 'compat-docx-review', 'Move the meeting to Thursday.');
      const sent = resultsSent(anthropic, at);
      expect(sent.get('review')?.text).toMatch(
        /inserted: \['Thursday'\]\ndeleted: \['Tuesday'\]\ncomments: \['Thursday suits everyone better\.'\]\nparagraphs: 2/,
      );
      expect(sent.get('pandoc')?.text).toMatch(/\[Tuesday\]\{\.deletion[^}]*\}\[Thursday\]\{\.insertion/);
      expect(sent.get('pandoc')?.text).toMatch(/Thursday suits everyone better/);
      expect((await artifactFile(server, person, events, 'reviewed.docx')).subarray(0, 2).toString()).toBe('PK');
    },
    SLOW,
  );

  it(
    "finds Node's docx and pptxgenjs from /workspace, with require() and with import",
    async ({ api, server, anthropic, person }) => {
      const at = anthropic.requests.length;
      const scripts = `${skill('compat-node-office')}/scripts`;
      anthropic.plan(
        use('copy', 'bash', {
          command: `cp ${scripts}/make_docx.cjs ${scripts}/make_deck.mjs /workspace/ && cd /workspace && node -e "require('pptxgenjs'); require('docx'); console.log('both found')"`,
        }),
        use('docx', 'bash', { command: 'node make_docx.cjs /mnt/session/outputs/report.docx' }),
        use('deck', 'bash', { command: 'node make_deck.mjs /mnt/session/outputs/deck.pptx' }),
        done,
      );
      const events = await runAgent(api, person, 'compat-node-office', 'A report and a deck, please.');
      const sent = resultsSent(anthropic, at);
      expect(sent.get('copy')?.text).toBe('both found\nexit code 0');
      expect(sent.get('docx')?.text).toMatch(/wrote \/mnt\/session\/outputs\/report\.docx \(\d+ bytes\)\nexit code 0/);
      expect(sent.get('deck')?.text).toMatch(/wrote \/mnt\/session\/outputs\/deck\.pptx\nexit code 0/);
      expect((await artifactFile(server, person, events, 'deck.pptx')).subarray(0, 2).toString()).toBe('PK');
    },
    SLOW,
  );

  it(
    'takes a Playwright screenshot of a server started inside the computer on localhost',
    async ({ api, server, anthropic, person }) => {
      const at = anthropic.requests.length;
      const folder = skill('compat-webapp-shot');
      anthropic.plan(
        use('serve', 'bash', {
          command: `cd ${folder} && (python -m http.server 8765 --directory site > /tmp/server.log 2>&1 &) && sleep 1 && cd /workspace`,
        }),
        use('shot', 'bash', {
          command: `cp ${folder}/scripts/shot.cjs . && node shot.cjs http://localhost:8765/ /mnt/session/outputs/page.png`,
          timeout_ms: 120_000,
        }),
        done,
      );
      const events = await runAgent(api, person, 'compat-webapp-shot', 'Screenshot the page.');
      const sent = resultsSent(anthropic, at);
      expect(sent.get('shot')?.text).toMatch(/title: Compat page; heading: Clicked\nsaved \/mnt\/session\/outputs\/page\.png/);
      const png = await artifactFile(server, person, events, 'page.png');
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect(png.length).toBeGreaterThan(2000);
    },
    SLOW,
  );

  it(
    'makes a GIF with imageio.v3, reads text with tesseract, and converts a docx to Markdown with pandoc',
    async ({ api, server, anthropic, person }) => {
      const at = anthropic.requests.length;
      const scripts = `${skill('compat-media')}/scripts`;
      anthropic.plan(
        use('gif', 'bash', {
          command: `python ${scripts}/make_gif.py /mnt/session/outputs/spinner.gif && python ${scripts}/make_gif.py --check /mnt/session/outputs/spinner.gif`,
        }),
        use('ocr', 'bash', {
          command: `python ${scripts}/text_image.py sign.png "SKILLET READS 42" && tesseract sign.png stdout`,
        }),
        use('md', 'bash', { command: `python ${scripts}/notes_docx.py notes.docx && pandoc notes.docx -t markdown` }),
        done,
      );
      const events = await runAgent(api, person, 'compat-media', 'Make the media.');
      const sent = resultsSent(anthropic, at);
      expect(sent.get('gif')?.text).toMatch(/frames: 8, size: 64x64/);
      expect(sent.get('ocr')?.text).toMatch(/SKILLET READS 42/);
      expect(sent.get('md')?.text).toMatch(
        /# Launch notes[\s\S]*Decisions from the launch meeting\.[\s\S]*- {1,3}Ship on Monday/,
      );
      expect((await artifactFile(server, person, events, 'spinner.gif')).subarray(0, 6).toString()).toBe('GIF89a');
    },
    SLOW,
  );

  it(
    'is a realistic system: python, localhost, a named user, fonts, the pip layer, and installers that fail at once offline',
    async ({ api, anthropic, person }) => {
      const at = anthropic.requests.length;
      anthropic.plan(
        use('system', 'bash', {
          command:
            'python --version; getent hosts localhost; id -un; echo "$HOME"; fc-list | grep -c . ; python -c "import skillet_compat_probe as p; print(p.greeting())"',
        }),
        use('pip', 'bash', { command: 'time pip install left-pad-for-python' }),
        use('npm', 'bash', { command: 'time npm install left-pad' }),
        use('offline-wheel', 'bash', { command: 'pip install skillet-compat-probe' }),
        done,
      );
      await runAgent(api, person, 'compat-system', 'Look around.');
      const sent = resultsSent(anthropic, at);
      const system = sent.get('system')?.text ?? '';
      expect(system).toMatch(/^Python 3\.\d+\.\d+\n(127\.0\.0\.1|::1)\s+localhost/);
      expect(system).toMatch(/\nuser\n\/workspace\n(\d+)\ninstalled by the pip layer\nexit code 0$/);
      expect(Number(/\/workspace\n(\d+)\n/.exec(system)?.[1])).toBeGreaterThan(10);
      for (const [id, words] of [
        ['pip', /no network[\s\S]*Python packages installed: [\s\S]*pypdf/],
        ['npm', /no network[\s\S]*Node packages installed[\s\S]*pptxgenjs/],
      ] as const) {
        const text = sent.get(id)?.text ?? '';
        expect(text, id).toMatch(words);
        expect(text, id).not.toMatch(/exit code 0$/);
        // `time`'s real seconds: it ended at once instead of waiting on a package index.
        const seconds = /real\s+(\d+)m([\d.]+)s/.exec(text);
        expect(Number(seconds?.[1]) * 60 + Number(seconds?.[2]), id).toBeLessThan(15);
      }
      expect(sent.get('offline-wheel')?.text).toMatch(/already satisfied[\s\S]*exit code 0$/i);
    },
    SLOW,
  );

  it(
    'shows nothing of the host on the image, and lets nothing of the image be changed',
    async ({ api, anthropic, person }) => {
      const at = anthropic.requests.length;
      anthropic.plan(
        use('look', 'bash', {
          command: `ls / | tr '\\n' ' '; echo; ls ${PROJECT_ROOT} /root /home/* 2>&1 | head -3; cat /proc/1/cmdline | tr '\\0' ' '`,
        }),
        use('change', 'bash', {
          command:
            'for target in /usr/bin/python3 /etc/passwd /usr/local/lib/node_modules/docx/package.json /opt/skillet/supervisor.py; do ' +
            'echo x >> "$target" 2>/dev/null && echo "CHANGED $target"; done; touch /usr/new 2>&1; echo checked',
        }),
        done,
      );
      await runAgent(api, person, 'compat-system', 'Look around.');
      const sent = resultsSent(anthropic, at);
      const look = sent.get('look')?.text ?? '';
      // The image's system, the computer's own folders, and nothing else at the root.
      expect(look.split('\n')[0]?.trim().split(' ').sort()).toEqual([
        'bin',
        'dev',
        'etc',
        'lib',
        'lib64',
        'mnt',
        'node_modules',
        'opt',
        'proc',
        'sbin',
        'tmp',
        'usr',
        'var',
        'workspace',
      ]);
      expect(look).toMatch(new RegExp(`cannot access '${PROJECT_ROOT}': No such file or directory`));
      expect(look).not.toContain('package.json');
      expect(sent.get('change')?.text).not.toContain('CHANGED');
      expect(sent.get('change')?.text).toMatch(/Read-only file system[\s\S]*checked/);
    },
    SLOW,
  );
});

describe.runIf(IMAGE_DIR && BUBBLEWRAP_HERE && KERNEL_LIMITS_HERE)('a node on the computer image', () => {
  it('says which image it runs computers on, for an operator comparing nodes', async ({ api }) => {
    const found = findComputerImage(IMAGE_DIR ?? '');
    const version = 'image' in found ? found.image.version : 'none';
    const scrape = await api.get<string>('/metrics', { headers: { authorization: `Bearer ${METRICS}` } });
    expect(seriesValue(scrape.text, `skillet_computer_image_info{version="${version}"}`)).toBe(1);
    expect(scrape.text).not.toContain('skillet_computer_image_info{version="host"}');
  });
});

describe.runIf(IMAGE_DIR && BUBBLEWRAP_HERE)('skillet doctor on the computer image', () => {
  plainIt('names the image and finds everything of the list in it, at the versions skills need', async () => {
    const report = await doctorReport({ sandbox: 'auto', computerImage: { dir: IMAGE_DIR ?? '' } });
    expect(report.image).toMatchObject({ inUse: true, version: expect.stringMatching(/^trixie-r\d+-/) });
    const missing = report.software.filter((item) => !item.present).map((item) => item.provides);
    expect(missing).toEqual([]);
    const version = (provides: string) => report.software.find((item) => item.provides === provides)?.version ?? '';
    expect(versionAtLeast(version('pypdf'), '5.0')).toBe(true);
    expect(versionAtLeast(version('Pillow'), '10.0')).toBe(true);
    expect(versionAtLeast(version('imageio'), '2.31')).toBe(true);
    expect(version('docx (Node)')).toMatch(/^9\./);
    expect(doctorText(report)).toMatch(/Software in the image[\s\S]*ok {7}pypdf 5\.\d+/);
  });
});
