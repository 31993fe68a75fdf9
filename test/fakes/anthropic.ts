import { type StreamingVendor, slices, startStreamingVendor, type RecordedRequest as VendorRequest } from './streaming-vendor.js';

/** A block of a planned reply, as the Messages API streams it. */
export type AnthropicFakeBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface AnthropicFakeUsage {
  input: number;
  output: number;
  cacheCreation?: number;
  cacheRead?: number;
}

/**
 * One planned answer to the next request, in order:
 * - reply: the blocks, then message_delta with `stop` (default end_turn, tool_use when a tool is used) and `usage`;
 * - status: an HTTP error with the vendor's error body and `retry-after-ms: 1`, so the SDK retries at once;
 * - cut: the reply's first `afterEvents` SSE events (default: half), then the socket destroyed;
 * - hang: the reply's first `afterEvents` events, then nothing until the client gives up;
 * - truncate: the reply's first `afterEvents` events, then the response ended cleanly (a stream with no stop).
 */
export type AnthropicPlan =
  | { kind: 'reply'; blocks: AnthropicFakeBlock[]; stop?: string; usage?: AnthropicFakeUsage; deltaSize?: number }
  | { kind: 'status'; status: number; message?: string }
  | { kind: 'cut' | 'hang' | 'truncate'; blocks: AnthropicFakeBlock[]; afterEvents?: number; deltaSize?: number };

/** A request to the fake Messages API, as it came in. */
export interface RecordedRequest extends VendorRequest {
  /**
   * performance.now() in this process just after the reply's latest content_block_delta was
   * written: a latency benchmark reading the other end in the same process compares against it.
   */
  lastDeltaAt?: number;
  /** performance.now() in this process once the request's whole body was read: when the server's call arrived. */
  receivedAt: number;
}

export interface FakeAnthropic extends StreamingVendor<AnthropicPlan, RecordedRequest> {
  /** The base URL to give the SDK: the server root. */
  url: string;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const sse = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

function blockEvents(block: AnthropicFakeBlock, index: number, size: number): string[] {
  const delta = (d: Record<string, unknown>) => sse('content_block_delta', { index, delta: d });
  const start = (content_block: Record<string, unknown>) => sse('content_block_start', { index, content_block });
  const stop = sse('content_block_stop', { index });
  switch (block.type) {
    case 'text':
      return [
        start({ type: 'text', text: '' }),
        ...slices(block.text, size).map((text) => delta({ type: 'text_delta', text })),
        stop,
      ];
    case 'thinking':
      return [
        start({ type: 'thinking', thinking: '', signature: '' }),
        ...slices(block.thinking, size).map((thinking) => delta({ type: 'thinking_delta', thinking })),
        delta({ type: 'signature_delta', signature: block.signature }),
        stop,
      ];
    case 'redacted_thinking':
      return [start({ type: 'redacted_thinking', data: block.data }), stop];
    case 'tool_use':
      return [
        start({ type: 'tool_use', id: block.id, name: block.name, input: {} }),
        ...['', ...slices(JSON.stringify(block.input), size)].map((partial_json) =>
          delta({ type: 'input_json_delta', partial_json }),
        ),
        stop,
      ];
  }
}

/** The whole SSE stream of a reply, one string per event, as the Messages API sends it. */
function replyEvents(plan: Extract<AnthropicPlan, { blocks: unknown }>, model: unknown, serial: number): string[] {
  const usage = plan.kind === 'reply' ? plan.usage : undefined;
  const stop =
    (plan.kind === 'reply' ? plan.stop : undefined) ?? (plan.blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
  const size = plan.deltaSize ?? 16;
  const message = {
    id: `msg_fake_${serial}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: {
      input_tokens: usage?.input ?? 10,
      cache_creation_input_tokens: usage?.cacheCreation ?? 0,
      cache_read_input_tokens: usage?.cacheRead ?? 0,
      output_tokens: 1,
    },
  };
  return [
    sse('message_start', { message }),
    sse('ping', {}),
    ...plan.blocks.flatMap((block, index) => blockEvents(block, index, size)),
    sse('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage?.output ?? 5 } }),
    sse('message_stop', {}),
  ];
}

/** A Messages API on 127.0.0.1 that answers each POST /v1/messages with the next planned answer. */
export function startFakeAnthropic(...initial: AnthropicPlan[]): Promise<FakeAnthropic> {
  return startStreamingVendor<AnthropicPlan, RecordedRequest>(
    {
      basePath: '',
      streamHeaders: { 'request-id': 'req_fake' },
      errorHeaders: { 'request-id': 'req_fake' },
      errorBody: (status, message) =>
        JSON.stringify({ type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message } }),
      answer: (plan, body, serial) =>
        plan.kind === 'status'
          ? plan
          : {
              kind: plan.kind,
              pieces: replyEvents(plan, body.model, serial),
              sendFirst: plan.kind === 'reply' ? undefined : plan.afterEvents,
            },
      record: (request) => ({ ...request, receivedAt: performance.now() }),
      afterWrite: (event, recorded) => {
        if (event.startsWith('event: content_block_delta')) recorded.lastDeltaAt = performance.now();
      },
    },
    initial,
  );
}
