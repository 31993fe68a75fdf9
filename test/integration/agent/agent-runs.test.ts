import { describe, expect } from 'vitest';
import {
  AGENT_CREDITS,
  cancel,
  eventOf,
  HOUSE_ANTHROPIC_KEY,
  infoOf,
  interrupt,
  nextExchange,
  runAgent,
  startRun,
  stopReasonOf,
  withAgentServer,
} from '../../helpers/agent.js';
import { balanceOf } from '../../helpers/billing.js';
import { session } from '../../helpers/factories.js';

const it = withAgentServer();

describe('an agent skill on the house Anthropic key', () => {
  it('streams a text answer, its usage and its result, and charges its tokens', async ({ api, anthropic, person }) => {
    const before = anthropic.requests.length;
    anthropic.plan({
      kind: 'reply',
      blocks: [{ type: 'text', text: 'Hello there.\nMore below.' }],
      usage: { input: 3, output: 2 },
    });
    const events = await runAgent(api, person, 'agent-plain', 'Say hello');

    expect(events.map((event) => event.type)).toEqual([
      'user.message',
      'session.status_running',
      'agent.message',
      'span.model_request_end',
      'execution.result',
      'session.status_idle',
    ]);
    expect(eventOf(events, 'agent.message')?.payload).toEqual({ content: [{ type: 'text', text: 'Hello there.\nMore below.' }] });
    expect(eventOf(events, 'span.model_request_end')?.payload).toEqual({ usage: { input_tokens: 3, output_tokens: 2 } });
    expect(eventOf(events, 'execution.result')?.payload).toMatchObject({
      summary: 'Hello there.',
      cost: 5,
      tokenUsage: { input_tokens: 3, output_tokens: 2 },
    });
    expect(stopReasonOf(events)).toBe('end_turn');
    expect(await balanceOf(api, person)).toMatchObject({ balance: AGENT_CREDITS - 5, totalSpent: 5 });

    const request = anthropic.requests[before];
    expect(request?.headers.authorization).toBe(`Bearer ${HOUSE_ANTHROPIC_KEY}`);
    expect(request?.body).toMatchObject({
      model: 'claude-test',
      stream: true,
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    expect(String(request?.body.system)).toContain("Answer the user's request.");
  });

  it('runs tool turns: reads a reference, runs a script in the sandbox, writes the artifact', async ({
    api,
    anthropic,
    person,
  }) => {
    const before = anthropic.requests.length;
    const use = (id: string, name: string, input: Record<string, unknown>) => ({
      kind: 'reply' as const,
      blocks: [{ type: 'tool_use' as const, id, name, input }],
      usage: { input: 1, output: 1 },
    });
    anthropic.plan(
      use('t1', 'read_file', { path: 'references/guide.md' }),
      use('t2', 'run_script', { path: 'scripts/count.py', stdin: 'one two three' }),
      use('t3', 'write_file', { path: 'report.md', content: '3 words' }),
      { kind: 'reply', blocks: [{ type: 'text', text: 'The text has 3 words.' }], usage: { input: 1, output: 1 } },
    );
    const events = await runAgent(api, person, 'agent-priced', 'one two three');

    expect(events.filter((event) => event.type === 'agent.tool_use').map((event) => event.payload)).toEqual([
      { name: 'read_file', tool: 't1', label: 'Reading references/guide.md' },
      { name: 'run_script', tool: 't2', label: 'Running scripts/count.py' },
      { name: 'write_file', tool: 't3', label: 'Writing report.md' },
    ]);
    const toolResult = (index: number) => JSON.stringify(anthropic.requests[before + index]?.body.messages);
    expect(toolResult(1)).toContain('Report the word count the script prints');
    expect(toolResult(2)).toContain('words=3');
    const result = eventOf(events, 'execution.result')?.payload;
    expect(result).toMatchObject({ cost: 2 + 8, tokenUsage: { input_tokens: 4, output_tokens: 4 } });
    const file = await api.get(`/api/v1/artifacts/${String(result?.artifactId)}/file/report.md`, { headers: session(person) });
    expect(file.status).toBe(200);
    expect(file.text).toBe('3 words');
  });

  it('reports a thinking block as agent.thinking and sends it back with its signature', async ({ api, anthropic, person }) => {
    const before = anthropic.requests.length;
    anthropic.plan(
      {
        kind: 'reply',
        blocks: [
          { type: 'thinking', thinking: 'Let me look.', signature: 'sig-1' },
          { type: 'tool_use', id: 't1', name: 'list_files', input: {} },
        ],
      },
      { kind: 'reply', blocks: [{ type: 'text', text: 'Done.' }] },
    );
    const events = await runAgent(api, person, 'agent-plain', 'think');
    expect(events.map((event) => event.type)).toContain('agent.thinking');
    expect(eventOf(events, 'agent.thinking')?.payload).toEqual({});
    expect(JSON.stringify(anthropic.requests[before + 1]?.body.messages)).toContain('sig-1');
  });

  it('retries a 429 and goes on', async ({ api, anthropic, person }) => {
    const before = anthropic.requests.length;
    anthropic.plan({ kind: 'status', status: 429 }, { kind: 'reply', blocks: [{ type: 'text', text: 'After a retry.' }] });
    const events = await runAgent(api, person, 'agent-plain', 'retry');
    expect(stopReasonOf(events)).toBe('end_turn');
    expect(anthropic.requests.length - before).toBe(2);
  });

  it('ends with error after a 500 outlasts the retries, and after a stream cut mid-answer', async ({
    api,
    anthropic,
    person,
  }) => {
    anthropic.plan({ kind: 'status', status: 500 }, { kind: 'status', status: 500 }, { kind: 'status', status: 500 });
    const failed = await runAgent(api, person, 'agent-plain', 'fail');
    expect(stopReasonOf(failed)).toBe('error');
    expect(infoOf(failed)).toMatch(/500/);

    anthropic.plan({ kind: 'cut', blocks: [{ type: 'text', text: 'This answer is cut off halfway through.' }] });
    const cut = await runAgent(api, person, 'agent-plain', 'cut');
    expect(stopReasonOf(cut)).toBe('error');
    expect(infoOf(cut)).toMatch(/model call failed/i);
  });

  it('delivers a 200 KB answer whole', async ({ api, anthropic, person }) => {
    const text = 'lorem ipsum '.repeat(17_000).slice(0, 200_000);
    anthropic.plan({ kind: 'reply', blocks: [{ type: 'text', text }], deltaSize: 4096 });
    const events = await runAgent(api, person, 'agent-plain', 'long');
    expect(eventOf(events, 'agent.message')?.payload).toEqual({ content: [{ type: 'text', text }] });
  });

  it('cancel and interrupt close the model request in flight', async ({ api, anthropic, person }) => {
    for (const stop of [cancel, interrupt]) {
      anthropic.plan({ kind: 'hang', blocks: [{ type: 'text', text: 'Thinking about it...' }], afterEvents: 2 });
      const exchanges = anthropic.requests.length;
      const run = await startRun(api, person, 'agent-plain', 'hang');
      const exchange = await nextExchange(anthropic, exchanges);
      expect((await stop(api, person, run.id)).status).toBe(200);
      expect(await exchange.ended).toBe('client_closed');
      await run.stream.ended;
      expect(stopReasonOf(run.stream.events), JSON.stringify(run.stream.events)).toBe('interrupt');
    }
  });
});
