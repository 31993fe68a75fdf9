import { describe, expect } from 'vitest';
import { modelVendorsOfFile } from '../../helpers/agent.js';
import { type CliRun, withCliServer } from '../../helpers/cli.js';
import { reply, startRunCall } from '../../helpers/thread-plans.js';

const { anthropic, env } = await modelVendorsOfFile();

const it = withCliServer(env);

// biome-ignore lint/correctness/noUnusedFunctionParameters: Vitest sets up the fixtures a hook names.
it.beforeAll(({ build }) => {}, 120_000);

const THREAD_HINT = /skillet chat --thread (\S+)/;

const threadOf = (run: CliRun) => THREAD_HINT.exec(run.stderr())?.[1] as string;

function type(run: CliRun, line: string): void {
  run.child.stdin?.write(`${line}\n`);
}

describe('skillet chat', () => {
  it('answers one message, lists the conversation, and goes on with it, showing what was said', async ({ cli, signIn }) => {
    await signIn();
    anthropic.plan(reply('I find skills and run them for you.'));
    const first = cli(['chat', 'What can you do?']);
    expect(await first.exited, first.stderr()).toBe(0);
    expect(first.stdout()).toBe('Assistant: I find skills and run them for you.\n');
    const threadId = threadOf(first);
    expect(threadId).toMatch(/^[0-9a-f-]{36}$/);

    const listed = cli(['chats']);
    expect(await listed.exited, listed.stderr()).toBe(0);
    expect(listed.stdout()).toMatch(new RegExp(`${threadId}\\s+\\S+\\s+What can you do\\?`));

    anthropic.plan(reply('Ticker counts; qr-code draws codes.'));
    const again = cli(['chat', '--thread', threadId, 'Which skills?']);
    expect(await again.exited, again.stderr()).toBe(0);
    expect(again.stdout()).toBe(
      [
        '> What can you do?',
        'Assistant: I find skills and run them for you.',
        'Assistant: Ticker counts; qr-code draws codes.',
        '',
      ].join('\n'),
    );
    // The model was given the whole conversation.
    const lastRequest = anthropic.requests.at(-1)?.body as { messages: { content: unknown }[] };
    expect(JSON.stringify(lastRequest.messages)).toContain('What can you do?');
  });

  it('asks before running a skill, runs it on a yes, and tells of the run’s end', async ({ cli, signIn }) => {
    await signIn();
    anthropic.plan(startRunCall('ticker', '1 10'), reply('Started the ticker.'), reply('The ticker finished: 1 tick.'));
    const chat = cli(['chat'], 'open');
    type(chat, 'Run the ticker please');
    await chat.waitFor('Allow it? Type y or n.');
    expect(chat.stdout()).toContain('The assistant asks to: ');
    type(chat, 'maybe');
    await chat.waitFor('Type y to allow it, or n to refuse it.');
    type(chat, 'y');
    await chat.waitFor('Assistant: The ticker finished: 1 tick.', 30_000);
    chat.child.stdin?.end();
    expect(await chat.exited, chat.stderr()).toBe(0);
    const out = chat.stdout();
    expect(out).toMatch(/ {2}✓ start_run: /);
    expect(out).toContain('Assistant: Started the ticker.');
    expect(out).toMatch(/Notice: .*ticker/);
    expect(out.indexOf('Started the ticker.')).toBeLessThan(out.indexOf('Notice:'));
  });

  it('runs nothing on a no, and leaves a question it could not ask for the app', async ({ cli, signIn }) => {
    await signIn();
    anthropic.plan(startRunCall('ticker', '1 10'), reply('Fine, I will not.'));
    const refused = cli(['chat', 'Run the ticker'], 'open');
    await refused.waitFor('Allow it? Type y or n.');
    type(refused, 'n');
    expect(await refused.exited, refused.stderr()).toBe(0);
    expect(refused.stdout()).toContain('  ✗ not allowed: start_run');
    expect(refused.stdout()).toContain('Assistant: Fine, I will not.');

    // Nothing to type answers with (stdin ended): the question stays for the app.
    anthropic.plan(startRunCall('ticker', '1 10'), reply('Stopped.'));
    const unanswered = cli(['chat', 'Run the ticker again']);
    expect(await unanswered.exited).toBe(0);
    expect(unanswered.stderr()).toContain('The assistant is waiting for your yes or no: answer it in the app');
  });

  it('prints records as JSON lines, and refuses an agent the workspace does not have', async ({ cli, signIn }) => {
    await signIn();
    anthropic.plan(reply('Hello.'));
    const json = cli(['chat', '--json', 'Hi']);
    expect(await json.exited, json.stderr()).toBe(0);
    const records = json
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; sequence: number });
    expect(records.map((record) => record.type)).toEqual(
      expect.arrayContaining(['user.message', 'agent.message', 'agent.turn_end']),
    );
    expect(records.map((record) => record.sequence)).toEqual(records.map((_, index) => index + 1));

    // A message the server refuses ends the command with its words, leaving nothing open.
    const tooLong = cli(['chat', 'x'.repeat(100_001)]);
    expect(await tooLong.exited).toBe(1);
    expect(tooLong.stderr()).not.toMatch(/must NOT|body\/|INVALID_INPUT/);
    expect(tooLong.stderr().trim()).not.toBe('');

    const unknown = cli(['chat', '--agent', 'nope', 'Hi']);
    expect(await unknown.exited).toBe(2);
    expect(unknown.stderr()).toBe(
      'There is no agent nope in this workspace. `skillet chats --agents` lists the ones there are.\n',
    );
    expect(unknown.stderr()).not.toMatch(/NOT_FOUND|\/api\/v1/);
  });
});
