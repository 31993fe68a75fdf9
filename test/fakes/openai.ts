import { type RecordedRequest, type StreamingVendor, slices, startStreamingVendor } from './streaming-vendor.js';

/**
 * A block of a planned reply, as Chat Completions streams it: text as `delta.content`,
 * thinking as `delta.reasoning_content` (vLLM, DeepSeek, llama.cpp), a tool use as
 * `delta.tool_calls`; `rawArguments` sends arguments other than the input's JSON (broken JSON, say).
 */
export type OpenAIFakeBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown>; rawArguments?: string };

/**
 * One planned answer to the next request, in order:
 * - reply: the blocks, then `finish` (default stop, tool_calls when a tool is used) and, when the
 *   client asked for it, a usage chunk (`usage: null` sends none, like servers that ignore the ask);
 * - status: an HTTP error with OpenAI's error body and `retry-after-ms: 1`, so the SDK retries at once;
 * - cut: the reply's first `afterChunks` chunks (default: half), then the socket destroyed;
 * - hang: the reply's first `afterChunks` chunks, then nothing until the client gives up;
 * - truncate: the reply's first `afterChunks` chunks, then the response ended cleanly (a stream with no stop).
 */
export type OpenAIPlan =
  | {
      kind: 'reply';
      blocks: OpenAIFakeBlock[];
      finish?: string;
      usage?: { prompt: number; completion: number } | null;
      deltaSize?: number;
    }
  | { kind: 'status'; status: number; message?: string }
  | { kind: 'cut' | 'hang' | 'truncate'; blocks: OpenAIFakeBlock[]; afterChunks?: number; deltaSize?: number };

export interface FakeOpenAI extends StreamingVendor<OpenAIPlan, RecordedRequest> {
  /** The base URL to give the SDK: `${root}/v1`. */
  url: string;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  404: 'invalid_request_error',
  429: 'rate_limit_exceeded',
  500: 'server_error',
};

function deltasOf(block: OpenAIFakeBlock, toolIndex: number, size: number): Record<string, unknown>[] {
  switch (block.type) {
    case 'text':
      return slices(block.text, size).map((content) => ({ content }));
    case 'thinking':
      return slices(block.thinking, size).map((reasoning_content) => ({ reasoning_content }));
    case 'tool_use': {
      const args = block.rawArguments ?? JSON.stringify(block.input);
      const head = { index: toolIndex, id: block.id, type: 'function', function: { name: block.name, arguments: '' } };
      const rest = slices(args, size).map((part) => ({ index: toolIndex, function: { arguments: part } }));
      return [head, ...rest].map((call) => ({ tool_calls: [call] }));
    }
  }
}

/** The reply's `data:` lines, one per chunk, as Chat Completions streams them, ending in `[DONE]`. */
function replyChunks(plan: Extract<OpenAIPlan, { blocks: unknown }>, body: Record<string, unknown>, serial: number): string[] {
  const base = { id: `chatcmpl-fake${serial}`, object: 'chat.completion.chunk', created: 1_767_225_600, model: body.model };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
  const size = plan.deltaSize ?? 16;
  let tools = 0;
  const deltas = plan.blocks.flatMap((block) => deltasOf(block, block.type === 'tool_use' ? tools++ : 0, size));
  const finish = (plan.kind === 'reply' ? plan.finish : undefined) ?? (tools > 0 ? 'tool_calls' : 'stop');
  const usage = plan.kind === 'reply' && plan.usage !== undefined ? plan.usage : { prompt: 10, completion: 5 };
  const options = body.stream_options;
  const asked = typeof options === 'object' && options !== null && 'include_usage' in options && options.include_usage === true;
  const usageChunk = usage && asked ? [{ prompt_tokens: usage.prompt, completion_tokens: usage.completion }] : [];
  return [
    chunk({ role: 'assistant', content: '' }),
    ...deltas.map((delta) => chunk(delta)),
    chunk({}, finish),
    ...usageChunk.map(
      (counts) =>
        `data: ${JSON.stringify({ ...base, choices: [], usage: { ...counts, total_tokens: counts.prompt_tokens + counts.completion_tokens } })}\n\n`,
    ),
    'data: [DONE]\n\n',
  ];
}

/** A Chat Completions API on 127.0.0.1 that answers each POST /v1/chat/completions with the next planned answer. */
export function startFakeOpenAI(...initial: OpenAIPlan[]): Promise<FakeOpenAI> {
  return startStreamingVendor<OpenAIPlan, RecordedRequest>(
    {
      basePath: '/v1',
      streamHeaders: {},
      errorHeaders: { 'x-request-id': 'req_fake' },
      errorBody: (status, message) =>
        JSON.stringify({ error: { message, type: ERROR_TYPES[status] ?? 'server_error', param: null, code: null } }),
      answer: (plan, body, serial) =>
        plan.kind === 'status'
          ? plan
          : {
              kind: plan.kind,
              pieces: replyChunks(plan, body, serial),
              sendFirst: plan.kind === 'reply' ? undefined : plan.afterChunks,
            },
      record: (request) => request,
    },
    initial,
  );
}
