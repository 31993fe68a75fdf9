import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { PROJECT_ROOT } from '../../../src/paths.js';
import type { CliRun } from '../../helpers/cli.js';
import { withCliServer } from '../../helpers/cli.js';

const it = withCliServer();

// Compiling the project takes longer than a test may: naming `build` here sets it up ahead.
// biome-ignore lint/correctness/noUnusedFunctionParameters: Vitest sets up the fixtures a hook names.
it.beforeAll(({ build }) => {}, 120_000);

/** One JSON document on stdout, ending with a newline, compact (stdout is a pipe here). */
async function oneJsonDocument(run: CliRun): Promise<unknown> {
  expect(await run.exited, run.stderr()).toBe(0);
  const out = run.stdout();
  expect(out.endsWith('\n')).toBe(true);
  expect(out.slice(0, -1)).not.toContain('\n');
  return JSON.parse(out);
}

describe('skillet --version and bad usage', () => {
  it('--version prints the package version', async ({ cli }) => {
    const { version } = JSON.parse(await readFile(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
    const run = cli(['--version']);
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toBe(`${version}\n`);
  });

  it('exits 2 for an unknown command, an unknown option, a missing argument and a bad value', async ({ cli }) => {
    const cases: [string[], string][] = [
      [['frobnicate'], "unknown command 'frobnicate'"],
      [['skills', '--bogus'], "unknown option '--bogus'"],
      [['status'], "missing required argument 'executionId'"],
      [['skills', 'show'], "missing required argument 'slug'"],
      [['executions', '--limit', 'many'], '--limit must be a whole number'],
      [['api', 'FETCH', '/api/v1/me'], 'METHOD must be one of'],
      [['api', 'POST', '/api/v1/me', '--field', 'novalue'], '--field takes key=value'],
      [['completion', 'tcsh'], 'bash, zsh or fish'],
    ];
    for (const [args, message] of cases) {
      const run = cli(args);
      expect(await run.exited, args.join(' ')).toBe(2);
      expect(run.stderr()).toContain(message);
    }
  });
});

describe('skillet api', () => {
  it('GET /api/v1/me answers with the stored key, as one JSON line', async ({ cli, signIn, person }) => {
    await signIn();
    expect(await oneJsonDocument(cli(['api', 'GET', '/api/v1/me']))).toMatchObject({
      user: { email: person.email },
      credential: { type: 'api_key' },
    });
    // A path without the prefix is under /api/v1; fields of a GET are its query.
    expect(await oneJsonDocument(cli(['api', 'get', 'marketplace/skills', '-f', 'limit=2']))).toMatchObject({ limit: 2 });
  });

  it('sends --field as a typed JSON body and --input as the body; a non-2xx prints the error body to stderr and exits 1', async ({
    cli,
    signIn,
  }) => {
    await signIn();
    const created = (await oneJsonDocument(
      cli(['api', 'POST', '/api/v1/executions', '-f', 'skill_slug=ticker', '-f', 'input=1 1', '-H', 'x-trace:cli']),
    )) as { id: string };
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    const sent = cli(
      ['api', 'POST', `/api/v1/executions/${created.id}/events`, '--input', '-'],
      JSON.stringify({ events: 'none' }),
    );
    expect(await sent.exited).toBe(1);
    expect(JSON.parse(sent.stderr())).toMatchObject({ error: { code: expect.any(String) } });
    expect(sent.stdout()).toBe('');

    const missing = cli(['api', 'GET', '/api/v1/executions/no-such-run/status']);
    expect(await missing.exited).toBe(1);
    expect(missing.stderr().endsWith('\n')).toBe(true);
    expect(JSON.parse(missing.stderr())).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });
});

describe('--json and tables', () => {
  it('every reading command prints one JSON document ending with a newline', async ({ cli, signIn }) => {
    await signIn();
    const detached = (await oneJsonDocument(cli(['run', 'ticker', '2 1', '--detach', '--json']))) as { executionId: string };
    expect(detached.executionId).toMatch(/^[0-9a-f-]{36}$/);
    const watched = cli(['status', detached.executionId, '--watch', '--interval', '100']);
    expect(await watched.exited).toBe(0);
    const commands = [
      ['whoami'],
      ['skills'],
      ['skills', 'show', 'ticker'],
      ['executions'],
      ['status', detached.executionId],
      ['artifacts'],
      ['balance'],
      ['packs'],
      ['transactions'],
      ['api', 'GET', 'me'],
    ];
    for (const args of commands) {
      const value = await oneJsonDocument(cli([...args, '--json']));
      expect(value, args.join(' ')).toBeTypeOf('object');
    }
  });

  it('list commands print a header row above their rows', async ({ cli, signIn }) => {
    await signIn();
    const headers: [string[], RegExp][] = [
      [['skills'], /^SLUG\s+FROM\s+PRICE\s+RUNTIME\s+DESCRIPTION$/],
      [['executions'], /^EXECUTION\s+STATUS\s+SKILL\s+COST\s+STARTED$/],
      [['artifacts'], /^ARTIFACT\s+STATUS\s+TYPE\s+SIZE\s+TITLE$/],
      [['transactions'], /^DATE\s+AMOUNT\s+TYPE\s+DESCRIPTION$/],
      [['packs'], /^PACK\s+CREDITS\s+PRICE$/],
    ];
    for (const [args, header] of headers) {
      const run = cli(args);
      expect(await run.exited).toBe(0);
      expect(run.stdout().split('\n')[0]).toMatch(header);
    }
    const skills = cli(['skills']);
    await skills.exited;
    expect(skills.stdout()).toMatch(/^ticker\s+server\s+Free\s+script\s+Emits numbered messages/m);
  });
});

describe('skills show and run without input', () => {
  it('skills show prints the name, price, the input the skill expects and its default', async ({ cli, signIn }) => {
    await signIn();
    const run = cli(['skills', 'show', 'ticker']);
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toContain('Ticker (ticker)');
    expect(run.stdout()).toMatch(/^Price:\s+Free$/m);
    expect(run.stdout()).toMatch(/^Input:\s+"N MS": N messages .*MS milliseconds apart/m);
    expect(run.stdout()).toMatch(/^Default:\s+"10 500" \(used when you give no input\)$/m);
    const shown = (await oneJsonDocument(cli(['skills', 'show', 'ticker', '--json']))) as Record<string, unknown>;
    expect(shown).toMatchObject({ slug: 'ticker', defaultInput: '10 500', input: expect.stringContaining('"N MS"') });
    // An agent skill's model calls are paid on top of its price: about how much, said to be an estimate.
    const agent = cli(['skills', 'show', 'report-writer']);
    expect(await agent.exited).toBe(0);
    expect(agent.stdout()).toMatch(/^Price:\s+1 Ds \+ model use \(about \d+ Ds a run\)$/m);
    expect(agent.stdout()).toMatch(
      /^\s+Its model calls \(.+\) are charged by the tokens they use, on top of its price\. About \d+ Ds is an estimate/m,
    );
    const list = cli(['skills']);
    expect(await list.exited).toBe(0);
    expect(list.stdout()).toMatch(/^pdf\s+server\s+Model use \(about \d+ Ds a run\)\s+agent\s/m);
    expect(list.stdout()).toMatch(/^ticker\s+server\s+Free\s+script\s/m);
    const unknown = cli(['skills', 'show', 'no-such-skill']);
    expect(await unknown.exited).toBe(1);
    expect(unknown.stderr()).toContain('No skill "no-such-skill"');
  });

  it("run with no input runs on the skill's default input, and says so on stderr", async ({ cli, signIn }) => {
    await signIn();
    const run = cli(['run', 'ticker', '--json']);
    expect(await run.exited, run.stderr()).toBe(0);
    expect(run.stderr()).toContain('running ticker on its default input, "10 500"');
    const events = run
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; payload: { content?: { text: string }[] } });
    expect(events.find((event) => event.type === 'user.message')?.payload.content?.[0]?.text).toBe('10 500');
    expect(events.filter((event) => event.type === 'agent.message')).toHaveLength(10);
  }, 30_000);

  it('run with no input of a skill without a default says what it needs and exits 2, starting nothing', async ({
    cli,
    signIn,
  }) => {
    await signIn();
    const before = (await oneJsonDocument(cli(['executions', '--json']))) as { items: unknown[] };
    const run = cli(['run', 'empty']);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain('empty needs input: Test skill that does nothing at all');
    const blank = cli(['run', 'empty', '   ']);
    expect(await blank.exited).toBe(2);
    const after = (await oneJsonDocument(cli(['executions', '--json']))) as { items: unknown[] };
    expect(after.items).toHaveLength(before.items.length);
  });
});

describe('status --watch', () => {
  it('follows a run until it ends: one JSON line per change, the last one not working', async ({ cli, signIn }) => {
    await signIn();
    const detached = cli(['run', 'ticker', '8 400', '--detach']);
    expect(await detached.exited).toBe(0);
    const executionId = detached.stdout().trim();
    const watch = cli(['status', executionId, '--watch', '--json', '--interval', '100']);
    expect(await watch.exited).toBe(0);
    const lines = watch.stdout().split('\n');
    expect(lines.pop()).toBe('');
    const statuses = lines.map((line) => JSON.parse(line) as { status: string; outputBlocks: unknown[] });
    expect(statuses[0]?.status).toBe('working');
    expect(statuses.at(-1)?.status).not.toBe('working');
    // A change is a new line: the ticks arrive while it watches.
    expect(statuses.length).toBeGreaterThan(2);
    expect(statuses.at(-1)?.outputBlocks).toHaveLength(8);
  }, 30_000);
});

describe('skillet completion', () => {
  it('prints a bash script naming the commands, and zsh and fish scripts', async ({ cli }) => {
    const bash = cli(['completion', 'bash']);
    expect(await bash.exited).toBe(0);
    expect(bash.stdout()).toContain('complete -o default -F _skillet skillet');
    for (const name of ['login', 'logout', 'run', 'status', 'api', 'completion', 'artifacts']) {
      expect(bash.stdout()).toMatch(new RegExp(`"".*\\b${name}\\b`));
    }
    expect(bash.stdout()).toMatch(/"artifacts"\) echo "get download publish unpublish rm"/);
    expect(bash.stdout()).toMatch(/"status"\) echo ".*--watch/);
    const zsh = cli(['completion', 'zsh']);
    expect(await zsh.exited).toBe(0);
    expect(zsh.stdout()).toContain('compdef _skillet skillet');
    const fish = cli(['completion', 'fish']);
    expect(await fish.exited).toBe(0);
    expect(fish.stdout()).toContain('complete -c skillet -n \'test (__skillet_path) = "skills"\' -a show');
  });
});
