import type { IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentSettings } from '../../src/config.js';
import { DEFAULT_MODEL_PRICES } from '../../src/model-prices.js';
import { anthropicClient } from '../../src/models/anthropic-client.js';
import {
  type ContentBlock,
  ModelCallFailed,
  type ModelClient,
  type ModelEndpoint,
  type ModelRequest,
  type ToolSpec,
  type Turn,
} from '../../src/models/conversation.js';
import { clientFor } from '../../src/models/model-clients.js';
import { routeModel } from '../../src/models/model-route.js';
import { openaiClient } from '../../src/models/openai-client.js';
import { startFakeAnthropic } from '../fakes/anthropic.js';
import { startFakeOpenAI } from '../fakes/openai.js';

const KEY = 'sk-test-0123456789abcdef';
const TOOL: ToolSpec = {
  name: 'read_file',
  description: 'Reads a file of the skill',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

/** What the shared cases need of either fake. */
interface Fake {
  url: string;
  requests: { headers: IncomingHttpHeaders; body: Record<string, unknown>; ended: Promise<string> }[];
  close(): Promise<void>;
}
/** The plans both fakes understand the same way. */
type CommonPlan =
  | { kind: 'reply'; blocks: { type: 'text'; text: string }[]; deltaSize?: number }
  | { kind: 'status'; status: number; message?: string }
  | { kind: 'cut' | 'truncate' | 'hang'; blocks: { type: 'text'; text: string }[] };

const open: Fake[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((fake) => fake.close()));
});
async function started<F extends Fake>(fake: Promise<F>): Promise<F> {
  open.push(await fake);
  return fake;
}

const endpoint = (baseUrl: string, overrides: Partial<ModelEndpoint> = {}): ModelEndpoint => ({
  ...{ apiKey: KEY, baseUrl, maxRetries: 2, timeoutMs: 5000 },
  ...overrides,
});
/** What a call rejected with (its reply, which no assertion on a failure accepts, when it did not). */
const failureOf = (call: Promise<unknown>) => call.catch((error: unknown) => error);

/** A request, with the blocks onBlock was handed collected in order. */
function ask(overrides: Partial<ModelRequest> = {}) {
  const blocks: ContentBlock[] = [];
  const request: ModelRequest = {
    model: 'test-model',
    system: 'You are terse.',
    turns: [{ role: 'user', text: 'Read notes.md' }],
    tools: [TOOL],
    maxOutputTokens: 4096,
    thinkingBudget: 0,
    signal: new AbortController().signal,
    onBlock: (block) => blocks.push(block),
    ...overrides,
  };
  return { request, blocks };
}

const text = (t: string) => ({ type: 'text' as const, text: t });
const vendors = [
  {
    name: 'Anthropic',
    start: (...plans: CommonPlan[]) => started(startFakeAnthropic(...plans)),
    client: anthropicClient,
    // SDK 1.x sends the key as a bearer token, not in x-api-key.
    auth: (headers: IncomingHttpHeaders) => [headers.authorization, headers['x-api-key']],
    expectedAuth: [`Bearer ${KEY}`, undefined],
    vendor: () => 'the Anthropic API',
  },
  {
    name: 'OpenAI',
    start: (...plans: CommonPlan[]) => started(startFakeOpenAI(...plans)),
    client: openaiClient,
    auth: (headers: IncomingHttpHeaders) => [headers.authorization],
    expectedAuth: [`Bearer ${KEY}`],
    vendor: (url: string) => `the OpenAI-compatible server at ${new URL(url).host}`,
  },
];

describe.each(vendors)('$name client, either vendor alike', ({ start, client, auth, expectedAuth, vendor }) => {
  const callOn = (fake: Fake, overrides: Partial<ModelEndpoint> = {}): ModelClient => client(endpoint(fake.url, overrides));

  it('gets a text answer, sending the key in the vendor’s auth header', async () => {
    const fake = await start({ kind: 'reply', blocks: [text('Hello there, how can I help?')] });
    const { request, blocks } = ask();
    const reply = await callOn(fake).call(request);
    expect(reply).toEqual({ content: [text('Hello there, how can I help?')], stop: 'end_turn', usage: expect.any(Object) });
    expect(blocks).toEqual(reply.content);
    expect(auth(fake.requests[0]?.headers ?? {})).toEqual(expectedAuth);
    expect(await fake.requests[0]?.ended).toBe('answered');
  });

  it('retries a 429 and then gets its answer', async () => {
    const fake = await start({ kind: 'status', status: 429 }, { kind: 'reply', blocks: [text('ok')] });
    const reply = await callOn(fake).call(ask().request);
    expect(reply.content).toEqual([text('ok')]);
    expect(fake.requests).toHaveLength(2);
  });

  it('fails with the status once 500s outlast the retries, never showing the key', async () => {
    const failing = { kind: 'status' as const, status: 500, message: `upstream broke (key ${KEY})` };
    const fake = await start(failing, failing, failing);
    const error = await failureOf(callOn(fake).call(ask().request));
    expect(error).toBeInstanceOf(ModelCallFailed);
    expect(error).toMatchObject({
      status: 500,
      message: `${vendor(fake.url)} answered 500 (server error) after 2 retries: upstream broke (key [key])`,
    });
    expect(fake.requests).toHaveLength(3);
  });

  it('does not retry a refused key, and says so', async () => {
    const fake = await start({ kind: 'status', status: 401, message: 'invalid api key' });
    const error = await failureOf(callOn(fake).call(ask().request));
    expect(error).toMatchObject({ status: 401, message: `${vendor(fake.url)} answered 401 (key refused): invalid api key` });
    expect(fake.requests).toHaveLength(1);
  });

  it('fails when the connection is cut mid-answer', async () => {
    const fake = await start({ kind: 'cut', blocks: [text('This answer will not arrive whole, it is cut.')] });
    const error = await failureOf(callOn(fake).call(ask().request));
    expect(error).toBeInstanceOf(ModelCallFailed);
    expect((error as ModelCallFailed).message).toMatch(new RegExp(`^the connection to ${vendor(fake.url)} broke mid-answer`));
  });

  it('fails when the stream ends cleanly before the answer says why it stopped', async () => {
    const fake = await start({ kind: 'truncate', blocks: [text('This answer ends early without a stop.')] });
    const error = await failureOf(callOn(fake).call(ask().request));
    expect(error).toMatchObject({ message: `${vendor(fake.url)} ended its answer before saying why it stopped (cut short)` });
  });

  it('fails a reply that stalls past the timeout, closing the connection', async () => {
    const fake = await start({ kind: 'hang', blocks: [text('stalls')] });
    const error = await failureOf(callOn(fake, { timeoutMs: 200 }).call(ask().request));
    expect(error).toBeInstanceOf(ModelCallFailed);
    expect(error).toMatchObject({ message: `${vendor(fake.url)} did not finish its answer within 200 ms` });
    expect(await fake.requests[0]?.ended).toBe('client_closed');
  });

  it('leaves no timer and no listener on the run’s signal behind a finished call', async () => {
    const fake = await start({ kind: 'reply', blocks: [text('Done.')] });
    const run = new AbortController();
    const listeners: string[] = [];
    const watched = new Proxy(run.signal, {
      get(target, key) {
        if (key === 'addEventListener' || key === 'removeEventListener') {
          return (type: string, listener: () => void, options?: { once?: boolean }) => {
            listeners.push(`${String(key)} ${type}`);
            Reflect.apply(target[key], target, [type, listener, options]);
          };
        }
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    await callOn(fake, { timeoutMs: 600_000 }).call(ask({ signal: watched }).request);
    expect(timers()).toBe(before);
    expect(listeners).toEqual(['addEventListener abort', 'removeEventListener abort']);
  });

  it('lets an error thrown by onBlock through unchanged', async () => {
    const fake = await start({ kind: 'reply', blocks: [text('Hi')] });
    const bug = new TypeError('a bug in the caller');
    const onBlock = () => {
      throw bug;
    };
    expect(await failureOf(callOn(fake).call(ask({ onBlock }).request))).toBe(bug);
  });

  it('gets a 200 KB answer whole', async () => {
    const long = Array.from({ length: 200 * 1024 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    const fake = await start({ kind: 'reply', blocks: [text(long)], deltaSize: 64 });
    const { request, blocks } = ask();
    const reply = await callOn(fake).call(request);
    expect(reply.content).toEqual([text(long)]);
    expect(blocks).toHaveLength(1);
  });
});

describe('Anthropic client', () => {
  it('sends the Messages API shape and counts cached input as input', async () => {
    const usage = { input: 100, output: 7, cacheRead: 20, cacheCreation: 3 };
    const fake = await started(startFakeAnthropic({ kind: 'reply', blocks: [text('Hi')], usage }));
    const reply = await anthropicClient(endpoint(fake.url)).call(ask().request);
    expect(reply.usage).toEqual({ input_tokens: 123, output_tokens: 7 });
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/v1/messages' });
    expect(fake.requests[0]?.body).toEqual({
      model: 'test-model',
      max_tokens: 4096,
      stream: true,
      system: 'You are terse.',
      messages: [{ role: 'user', content: 'Read notes.md' }],
      tools: [{ name: 'read_file', description: 'Reads a file of the skill', input_schema: TOOL.inputSchema }],
    });
  });

  it('hands on thinking and tool use in order, and sends them back signed with the tool results', async () => {
    const fake = await started(
      startFakeAnthropic(
        {
          kind: 'reply',
          blocks: [
            { type: 'thinking', thinking: 'The user wants notes.md read.', signature: 'sig-abc' },
            { type: 'redacted_thinking', data: 'opaque-data' },
            text('Reading it.'),
            { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'notes.md' } },
          ],
        },
        { kind: 'reply', blocks: [text('It says hello.')] },
      ),
    );
    const client = anthropicClient(endpoint(fake.url));
    const first = ask({ thinkingBudget: 2048 });
    const reply = await client.call(first.request);
    const expected: ContentBlock[] = [
      { type: 'thinking', thinking: 'The user wants notes.md read.', signature: 'sig-abc' },
      { type: 'thinking', thinking: '', signature: '', redacted: 'opaque-data' },
      text('Reading it.'),
      { type: 'tool_call', id: 'toolu_1', name: 'read_file', input: { path: 'notes.md' } },
    ];
    expect(reply).toMatchObject({ content: expected, stop: 'tool_use' });
    expect(first.blocks).toEqual(expected);
    expect(fake.requests[0]?.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });

    const turns: Turn[] = [
      ...first.request.turns,
      { role: 'assistant', content: reply.content },
      { role: 'tool', results: [{ callId: 'toolu_1', name: 'read_file', output: 'no such file', isError: true }] },
    ];
    expect((await client.call(ask({ turns }).request)).stop).toBe('end_turn');
    expect(fake.requests[1]?.body.messages).toEqual([
      { role: 'user', content: 'Read notes.md' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'The user wants notes.md read.', signature: 'sig-abc' },
          { type: 'redacted_thinking', data: 'opaque-data' },
          { type: 'text', text: 'Reading it.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'notes.md' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'no such file', is_error: true }] },
    ]);
  });

  it('rejects with the signal’s reason when aborted mid-reply, and closes the connection', async () => {
    // message_start, ping, then the first text block whole: the reply hangs after it.
    const fake = await started(
      startFakeAnthropic({ kind: 'hang', blocks: [text('Thinking'), text('never sent')], afterEvents: 5 }),
    );
    const controller = new AbortController();
    const stop = new Error('stopped by the user');
    const { request } = ask({ signal: controller.signal, onBlock: () => controller.abort(stop) });
    await expect(anthropicClient(endpoint(fake.url)).call(request)).rejects.toBe(stop);
    expect(await fake.requests[0]?.ended).toBe('client_closed');
  });
});

describe('OpenAI client', () => {
  it('sends the Chat Completions shape and reads the usage chunk', async () => {
    const fake = await started(startFakeOpenAI({ kind: 'reply', blocks: [text('Hi')], usage: { prompt: 31, completion: 4 } }));
    const reply = await openaiClient(endpoint(fake.url)).call(ask().request);
    expect(reply).toEqual({ content: [text('Hi')], stop: 'end_turn', usage: { input_tokens: 31, output_tokens: 4 } });
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(fake.requests[0]?.body).toEqual({
      model: 'test-model',
      max_tokens: 4096,
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Read notes.md' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'read_file', description: 'Reads a file of the skill', parameters: TOOL.inputSchema },
        },
      ],
    });
  });

  it('counts 0 tokens when the server sends no usage', async () => {
    const fake = await started(startFakeOpenAI({ kind: 'reply', blocks: [text('Hi')], usage: null }));
    expect((await openaiClient(endpoint(fake.url)).call(ask().request)).usage).toEqual({ input_tokens: 0, output_tokens: 0 });
  });

  it('hands on reasoning, text and tool calls in order, and sends back calls and results without the reasoning', async () => {
    const fake = await started(
      startFakeOpenAI(
        {
          kind: 'reply',
          blocks: [
            { type: 'thinking', thinking: 'Two files to read.' },
            text('Reading both.'),
            { type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'a.md' } },
            { type: 'tool_use', id: 'call_2', name: 'read_file', input: {}, rawArguments: '{"path": "b.md"' },
          ],
        },
        { kind: 'reply', blocks: [text('Done.')] },
      ),
    );
    const client = openaiClient(endpoint(fake.url));
    const first = ask();
    const reply = await client.call(first.request);
    const expected: ContentBlock[] = [
      { type: 'thinking', thinking: 'Two files to read.', signature: '' },
      text('Reading both.'),
      { type: 'tool_call', id: 'call_1', name: 'read_file', input: { path: 'a.md' } },
      { type: 'tool_call', id: 'call_2', name: 'read_file', input: { _invalid_json: '{"path": "b.md"' } },
    ];
    expect(reply).toMatchObject({ content: expected, stop: 'tool_use' });
    expect(first.blocks).toEqual(expected);

    const turns: Turn[] = [
      ...first.request.turns,
      { role: 'assistant', content: reply.content },
      {
        role: 'tool',
        results: [
          { callId: 'call_1', name: 'read_file', output: '# A', isError: false },
          { callId: 'call_2', name: 'read_file', output: 'the arguments were not JSON', isError: true },
        ],
      },
    ];
    await client.call(ask({ turns }).request);
    expect(fake.requests[1]?.body.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Read notes.md' },
      {
        role: 'assistant',
        content: 'Reading both.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.md"}' } },
          {
            id: 'call_2',
            type: 'function',
            function: { name: 'read_file', arguments: '{"_invalid_json":"{\\"path\\": \\"b.md\\""}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '# A' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Error: the arguments were not JSON' },
    ]);
  });

  it('hands on the text as soon as tool calls start; an abort then rejects as an abort and closes the connection', async () => {
    // The role chunk, the text's one chunk, the tool call's first chunk: then the reply hangs.
    const blocks = [text('Reading it.'), { type: 'tool_use' as const, id: 'call_1', name: 'read_file', input: { path: 'a.md' } }];
    const fake = await started(startFakeOpenAI({ kind: 'hang', blocks, afterChunks: 3 }));
    const controller = new AbortController();
    const seen: ContentBlock[] = [];
    const { request } = ask({ signal: controller.signal, onBlock: (block) => seen.push(block) && controller.abort() });
    const error = await failureOf(openaiClient(endpoint(fake.url)).call(request));
    expect(seen).toEqual([text('Reading it.')]);
    expect(error).not.toBeInstanceOf(ModelCallFailed);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(await fake.requests[0]?.ended).toBe('client_closed');
  });
});

describe('the client a route gets', () => {
  const settingsFor = (anthropicUrl: string): AgentSettings => ({
    anthropic: { apiKey: KEY, baseUrl: anthropicUrl, model: 'claude-house' },
    openai: { apiKey: undefined, baseUrl: 'http://openai.test/v1', model: 'gpt-house' },
    maxRetries: 0,
    timeoutMs: 5000,
    maxTurns: 25,
    maxOutputTokens: 1000,
    maxRunTokens: 100_000,
    thinkingBudget: 0,
    prices: DEFAULT_MODEL_PRICES,
  });
  const houseRoute = (settings: AgentSettings) => routeModel(settings, {}, undefined) ?? expect.fail('no house route');

  it('is one client per house key, whose calls at once each get their own answer', async () => {
    const fake = await started(
      startFakeAnthropic({ kind: 'reply', blocks: [text('first')] }, { kind: 'reply', blocks: [text('second')] }),
    );
    const settings = settingsFor(fake.url);
    const client = clientFor(settings, houseRoute(settings));
    expect(clientFor(settings, houseRoute(settings))).toBe(client);
    const replies = await Promise.all([client.call(ask().request), client.call(ask().request)]);
    // Either call may have reached the fake first: the answers are compared as a set.
    const answers = replies.map((reply) => JSON.stringify(reply.content)).sort();
    expect(answers).toEqual([JSON.stringify([text('first')]), JSON.stringify([text('second')])]);
    expect(fake.requests.map((request) => request.headers.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
  });

  it('is new for other settings, and for each use of a payer’s own key, which its calls carry', async () => {
    const fake = await started(startFakeAnthropic({ kind: 'reply', blocks: [text('yours')] }));
    const settings = settingsFor(fake.url);
    expect(clientFor(settingsFor(fake.url), houseRoute(settingsFor(fake.url)))).not.toBe(
      clientFor(settings, houseRoute(settings)),
    );
    const own = { provider: 'anthropic' as const, key: 'sk-ant-own-key' };
    const ownRoute = routeModel(settings, {}, own) ?? expect.fail('no route for the own key');
    const client = clientFor(settings, ownRoute);
    expect(clientFor(settings, ownRoute)).not.toBe(client);
    expect((await client.call(ask().request)).content).toEqual([text('yours')]);
    expect(fake.requests[0]?.headers.authorization).toBe('Bearer sk-ant-own-key');
  });
});
