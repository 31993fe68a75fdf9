import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect } from 'vitest';
import type { FakeAnthropic } from '../../fakes/anthropic.js';
import type { FakeOpenAI } from '../../fakes/openai.js';
import { eventOf, stopReasonOf, withAgentServer } from '../../helpers/agent.js';
import { createExecution, sendMessage, streamOf } from '../../helpers/executions.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import { uploadRaw } from '../../helpers/files.js';
import type { Client } from '../../helpers/http.js';
import { BUBBLEWRAP_HERE, KERNEL_LIMITS_HERE } from '../../helpers/sandbox.js';
import type { StreamEvent } from '../../helpers/sse.js';

const it = withAgentServer();
const PYTHON = '/usr/bin/python3';
const HAS_PDF_TOOLS = existsSync(PYTHON) && existsSync('/usr/bin/pdfinfo');

/** Two small PDFs made by reportlab, one of 2 pages and one of 3. */
async function twoPdfs(): Promise<{ a: Buffer; b: Buffer }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pdfs-'));
  try {
    const script = [
      'import sys',
      'from reportlab.pdfgen import canvas',
      'for name, pages in (("a", 2), ("b", 3)):',
      '    c = canvas.Canvas(sys.argv[1] + "/" + name + ".pdf")',
      '    for p in range(pages):',
      '        c.drawString(72, 720, "%s page %d" % (name, p + 1)); c.showPage()',
      '    c.save()',
    ].join('\n');
    execFileSync(PYTHON, ['-c', script, dir]);
    return { a: await readFile(path.join(dir, 'a.pdf')), b: await readFile(path.join(dir, 'b.pdf')) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Pages of a PDF by poppler's pdfinfo: a parser that is not the pypdf the run used. */
async function pagesOf(bytes: Buffer): Promise<number> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pdfinfo-'));
  try {
    await writeFile(path.join(dir, 'x.pdf'), bytes);
    const info = execFileSync('/usr/bin/pdfinfo', [path.join(dir, 'x.pdf')], { encoding: 'utf8' });
    return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface Upload {
  name: string;
  bytes: Buffer | string;
}

/** Uploads `files`, runs `skill` on them and waits for its end; the events. */
async function runWithFiles(serverUrl: string, api: Client, person: TestUser, skill: string, input: string, files: Upload[]) {
  const ids: { fileId: string }[] = [];
  for (const file of files) {
    const stored = await uploadRaw(serverUrl, session(person), file.name, file.bytes);
    expect(stored.status).toBe(201);
    ids.push({ fileId: stored.body.id });
  }
  const created = await createExecution(api, person, skill, input, { files: ids });
  const stream = await streamOf(api, person, created.id);
  expect((await sendMessage(api, person, created.id, input)).status).toBe(200);
  await stream.ended;
  return stream.events;
}

/** One file of the run's artifact, as bytes. */
async function artifactFile(serverUrl: string, person: TestUser, events: StreamEvent[], name: string) {
  const result = eventOf(events, 'execution.result')?.payload;
  const reply = await fetch(`${serverUrl}/api/v1/artifacts/${String(result?.artifactId)}/file/${name}`, {
    headers: session(person),
  });
  expect(reply.status, name).toBe(200);
  return Buffer.from(await reply.arrayBuffer());
}

const toolCall = (id: string, name: string, input: Record<string, unknown>) => ({ type: 'tool_use' as const, id, name, input });

describe.runIf(BUBBLEWRAP_HERE && KERNEL_LIMITS_HERE && HAS_PDF_TOOLS)('the computer with the user’s files', () => {
  it('merges two uploaded PDFs with model-written pypdf code, on an OpenAI-compatible server with the person’s own key', async ({
    server,
    api,
    openai,
    person,
  }) => {
    expect((await api.put('/api/v1/byok', { body: { key: `sk-own-${'p'.repeat(24)}` }, headers: session(person) })).status).toBe(
      200,
    );
    const { a, b } = await twoPdfs();
    const before = openai.requests.length;
    const code = [
      "python3 - <<'EOF'",
      'from pypdf import PdfWriter',
      'writer = PdfWriter()',
      "for name in ('first.pdf', 'second.pdf'):",
      "    writer.append('/mnt/user-data/uploads/' + name)",
      "writer.write('/mnt/session/outputs/merged.pdf')",
      'print(len(writer.pages))',
      'EOF',
    ].join('\n');
    openai.plan(
      {
        kind: 'reply',
        blocks: [toolCall('ls', 'bash', { command: 'ls /mnt/user-data/uploads; rm -f /mnt/user-data/uploads/first.pdf' })],
      },
      { kind: 'reply', blocks: [toolCall('m', 'bash', { command: code })] },
      { kind: 'reply', blocks: [{ type: 'text', text: 'Merged: 5 pages.' }] },
    );
    const events = await runWithFiles(server.url, api, person, 'pdf', 'Merge these two.', [
      { name: 'first.pdf', bytes: a },
      { name: 'second.pdf', bytes: b },
    ]);
    expect(stopReasonOf(events)).toBe('end_turn');
    const system = JSON.stringify(openai.requests[before]?.body.messages);
    expect(system).toContain('/mnt/user-data/uploads/first.pdf');
    const tools = ((openai.requests[before + 2]?.body.messages ?? []) as { role: string; content: string }[]).filter(
      (message) => message.role === 'tool',
    );
    expect(tools[0]?.content).toMatch(/^(Error: )?first\.pdf\nsecond\.pdf\nstderr:\n.*Read-only file system/s);
    expect(tools[1]?.content).toBe('5\nexit code 0');
    expect(await pagesOf(await artifactFile(server.url, person, events, 'merged.pdf'))).toBe(5);
  });

  it('runs the built-in pdf, xlsx and chart skills’ own scripts on uploaded files', async ({
    server,
    api,
    anthropic,
    person,
  }) => {
    const { a, b } = await twoPdfs();
    const reply = (...blocks: ReturnType<typeof toolCall>[]) => ({
      kind: 'reply' as const,
      blocks,
      usage: { input: 1, output: 1 },
    });
    const done = { kind: 'reply' as const, blocks: [{ type: 'text' as const, text: 'Done.' }], usage: { input: 1, output: 1 } };
    const scripts = '/mnt/skills/pdf/scripts';
    anthropic.plan(
      reply(
        toolCall('m', 'bash', {
          command: `python3 ${scripts}/merge.py /mnt/session/outputs/all.pdf /mnt/user-data/uploads/*.pdf`,
        }),
      ),
      reply(
        toolCall('s', 'bash', {
          command: `python3 ${scripts}/split.py /mnt/session/outputs/all.pdf /mnt/session/outputs/parts 2-4`,
        }),
      ),
      reply(
        toolCall('t', 'bash', {
          command: `python3 ${scripts}/extract_text.py /mnt/session/outputs/all.pdf /workspace/all.txt && grep -c page /workspace/all.txt`,
        }),
      ),
      done,
    );
    const pdfRun = await runWithFiles(server.url, api, person, 'pdf', 'Merge, split and read.', [
      { name: 'a.pdf', bytes: a },
      { name: 'b.pdf', bytes: b },
    ]);
    expect(stopReasonOf(pdfRun)).toBe('end_turn');
    expect(await pagesOf(await artifactFile(server.url, person, pdfRun, 'all.pdf'))).toBe(5);
    expect(await pagesOf(await artifactFile(server.url, person, pdfRun, 'parts/all-p2-4.pdf'))).toBe(3);

    anthropic.plan(
      reply(
        toolCall('c', 'bash', {
          command:
            'python3 /mnt/skills/chart/scripts/chart.py /mnt/user-data/uploads/sales.csv /mnt/session/outputs/chart.png --x region --y revenue',
        }),
      ),
      done,
    );
    const csv = 'region,quarter,revenue\nNorth,Q1,120\nNorth,Q2,135\nSouth,Q1,98\n';
    const chartRun = await runWithFiles(server.url, api, person, 'chart', 'Revenue by region.', [
      { name: 'sales.csv', bytes: csv },
    ]);
    const png = await artifactFile(server.url, person, chartRun, 'chart.png');
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');

    const spec = JSON.stringify({
      sheets: [
        {
          name: 'Sales',
          rows: [
            ['Region', 'Q1', 'Q2', 'Total'],
            ['North', 120, 135, '=SUM(B2:C2)'],
          ],
        },
      ],
    });
    anthropic.plan(
      reply(toolCall('w', 'write', { path: '/workspace/spec.json', content: spec })),
      reply(
        toolCall('x', 'bash', {
          command:
            'python3 /mnt/skills/xlsx/scripts/write_sheet.py /workspace/spec.json /mnt/session/outputs/sales.xlsx && python3 /mnt/skills/xlsx/scripts/read_sheet.py /mnt/session/outputs/sales.xlsx --formulas 2>/dev/null',
        }),
      ),
      done,
    );
    const before = anthropic.requests.length;
    const sheetRun = await runWithFiles(server.url, api, person, 'xlsx', 'A sales sheet with a total.', []);
    expect(stopReasonOf(sheetRun)).toBe('end_turn');
    expect(JSON.stringify(anthropic.requests.at(-1)?.body.messages)).toContain('North,120,135,=SUM(B2:C2)');
    expect(anthropic.requests.length - before).toBe(3);
  });
});

type Fixtures = { anthropic: FakeAnthropic; openai: FakeOpenAI; ownServer: (env: Record<string, string>) => Promise<Client> };

describe.runIf(BUBBLEWRAP_HERE && KERNEL_LIMITS_HERE)('the computer’s network when the operator allows hosts', () => {
  it('goes through the egress proxy, which refuses a host not allowed with its reason; web_fetch obeys the same rule', async ({
    anthropic,
    ownServer,
  }: Fixtures) => {
    const api = await ownServer({ SKILL_ALLOWED_HOSTS: 'docs.example.org' });
    const person = await signUp(api);
    anthropic.forgetPlans();
    const before = anthropic.requests.length;
    const probe = [
      'echo "$HTTPS_PROXY"',
      `python3 -c "import urllib.request; urllib.request.urlopen('http://internal.example.net/', timeout=5)" 2>&1 | tail -1`,
    ].join('; ');
    anthropic.plan(
      { kind: 'reply', blocks: [toolCall('n', 'bash', { command: probe })], usage: { input: 1, output: 1 } },
      {
        kind: 'reply',
        blocks: [toolCall('f', 'web_fetch', { url: 'http://169.254.169.254/latest/meta-data/' })],
        usage: { input: 1, output: 1 },
      },
      { kind: 'reply', blocks: [{ type: 'text', text: 'Done.' }], usage: { input: 1, output: 1 } },
    );
    const created = await createExecution(api, person, 'shout-files', 'go');
    const stream = await streamOf(api, person, created.id);
    await sendMessage(api, person, created.id, 'go');
    await stream.ended;
    const messages = JSON.stringify(anthropic.requests.at(-1)?.body.messages);
    expect(String(anthropic.requests[before]?.body.system)).toContain('docs.example.org');
    expect(String(anthropic.requests[before]?.body.tools && JSON.stringify(anthropic.requests[before]?.body.tools))).toContain(
      'web_fetch',
    );
    expect(messages).toContain('http://127.0.0.1:3128');
    expect(messages).toMatch(/internal\.example\.net is not among the hosts/);
    expect(messages).toMatch(/169\.254\.169\.254[^"]*not among the hosts|not among the hosts[^"]*169\.254\.169\.254/);
  });
});
