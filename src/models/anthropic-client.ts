import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
import type { TokenUsage } from '../language-models.js';
import {
  type ContentBlock,
  ModelCallFailed,
  type ModelClient,
  type ModelEndpoint,
  type ModelReply,
  type ModelRequest,
  type ModelStop,
  type ToolImage,
  type Turn,
  toolInputOf,
} from './conversation.js';
import { hostOf, streamedCall, type VendorFailures } from './model-errors.js';
import { vendorFetch } from './vendor-fetch.js';

const VENDOR = 'the Anthropic API';

function blockParams(content: ContentBlock[]): Anthropic.ContentBlockParam[] {
  const params: Anthropic.ContentBlockParam[] = [];
  for (const block of content) {
    if (block.type === 'text') {
      // The API refuses empty text blocks; an empty one carries nothing anyway.
      if (block.text !== '') params.push({ type: 'text', text: block.text });
    } else if (block.type === 'tool_call') {
      params.push({ type: 'tool_use', id: block.id, name: block.name, input: block.input });
    } else if (block.redacted !== undefined) {
      params.push({ type: 'redacted_thinking', data: block.redacted });
    } else if (block.signature !== '') {
      // Thinking goes back signed and unchanged; unsigned thinking (from no Anthropic reply) would be refused.
      params.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
    }
  }
  return params;
}

/** A tool result with a picture: Messages takes images inside tool results. */
function imageContent(text: string, image: ToolImage): (Anthropic.TextBlockParam | Anthropic.ImageBlockParam)[] {
  const mediaType = image.mediaType as Anthropic.Base64ImageSource['media_type'];
  return [
    { type: 'image', source: { type: 'base64', media_type: mediaType, data: image.data } },
    { type: 'text', text },
  ];
}

function messageParam(turn: Turn): Anthropic.MessageParam {
  switch (turn.role) {
    case 'user':
      return { role: 'user', content: turn.text };
    case 'assistant':
      return { role: 'assistant', content: blockParams(turn.content) };
    case 'tool':
      return {
        role: 'user',
        content: turn.results.map((result) => ({
          type: 'tool_result' as const,
          tool_use_id: result.callId,
          content: result.image ? imageContent(result.output, result.image) : result.output,
          is_error: result.isError,
        })),
      };
  }
}

function requestBody(request: ModelRequest): Anthropic.MessageCreateParamsStreaming {
  const body: Anthropic.MessageCreateParamsStreaming = {
    model: request.model,
    max_tokens: request.maxOutputTokens,
    messages: request.turns.map(messageParam),
    stream: true,
  };
  if (request.system !== '') body.system = request.system;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema,
    }));
  }
  if (request.thinkingBudget > 0) {
    // The budget must stay below max_tokens; shrinking it keeps the output cap (what is paid for) as set.
    body.thinking = { type: 'enabled', budget_tokens: Math.min(request.thinkingBudget, request.maxOutputTokens - 1) };
  }
  return body;
}

function stopOf(reason: Anthropic.StopReason): ModelStop {
  if (reason === 'end_turn' || reason === 'stop_sequence') return 'end_turn';
  if (reason === 'tool_use' || reason === 'max_tokens') return reason;
  return 'other';
}

/** A block while its deltas arrive; `partial` holds text, thinking or tool input JSON. */
interface OpenBlock {
  start: Anthropic.RawContentBlockStartEvent['content_block'];
  partial: string;
  signature: string;
}

function finished(open: OpenBlock): ContentBlock | undefined {
  const { start } = open;
  if (start.type === 'text') return { type: 'text', text: open.partial };
  if (start.type === 'thinking') return { type: 'thinking', thinking: open.partial, signature: open.signature };
  if (start.type === 'redacted_thinking') return { type: 'thinking', thinking: '', signature: '', redacted: start.data };
  if (start.type === 'tool_use') return { type: 'tool_call', id: start.id, name: start.name, input: toolInputOf(open.partial) };
  // Server-side tool blocks: never asked for, so never handed on.
  return undefined;
}

/** Reads one streamed reply, handing each block on as it closes. */
async function readReply(
  stream: AsyncIterable<Anthropic.RawMessageStreamEvent>,
  onBlock: ModelRequest['onBlock'],
  signal: AbortSignal,
  onTextDelta?: ModelRequest['onTextDelta'],
) {
  const content: ContentBlock[] = [];
  const open = new Map<number, OpenBlock>();
  let usage: Anthropic.MessageDeltaUsage | Anthropic.Usage | undefined;
  let stop: Anthropic.StopReason | null = null;
  for await (const event of stream) {
    // Events already buffered still arrive after an abort: none may reach onBlock.
    signal.throwIfAborted();
    if (event.type === 'message_start') {
      usage = event.message.usage;
    } else if (event.type === 'content_block_start') {
      open.set(event.index, { start: event.content_block, partial: '', signature: '' });
    } else if (event.type === 'content_block_delta') {
      const block = open.get(event.index);
      const { delta } = event;
      if (!block) continue;
      if (delta.type === 'text_delta') {
        block.partial += delta.text;
        onTextDelta?.(delta.text);
      } else if (delta.type === 'thinking_delta') block.partial += delta.thinking;
      else if (delta.type === 'signature_delta') block.signature += delta.signature;
      else if (delta.type === 'input_json_delta') block.partial += delta.partial_json;
    } else if (event.type === 'content_block_stop') {
      const block = open.get(event.index);
      open.delete(event.index);
      const done = block && finished(block);
      if (done) {
        content.push(done);
        onBlock(done);
      }
    } else if (event.type === 'message_delta') {
      stop = event.delta.stop_reason ?? stop;
      // message_delta's counts are cumulative; a null one means "as message_start said".
      const before = usage;
      usage = {
        ...event.usage,
        input_tokens: event.usage.input_tokens ?? before?.input_tokens ?? null,
        cache_creation_input_tokens: event.usage.cache_creation_input_tokens ?? before?.cache_creation_input_tokens ?? null,
        cache_read_input_tokens: event.usage.cache_read_input_tokens ?? before?.cache_read_input_tokens ?? null,
      };
    }
  }
  // The SDK's stream ends quietly, without throwing, when its signal aborts.
  signal.throwIfAborted();
  return { content, stop, usage };
}

function tokenUsage(usage: Anthropic.MessageDeltaUsage | Anthropic.Usage | undefined): TokenUsage {
  // Cached input is still input the call was charged for.
  const input = (usage?.input_tokens ?? 0) + (usage?.cache_creation_input_tokens ?? 0) + (usage?.cache_read_input_tokens ?? 0);
  return { input_tokens: input, output_tokens: usage?.output_tokens ?? 0 };
}

function failuresAt(baseUrl: string): VendorFailures<APIError> {
  return {
    vendor: VENDOR,
    reachable: `${VENDOR} at ${hostOf(baseUrl) ?? 'its configured address'}`,
    classes: { api: APIError, connection: APIConnectionError, timeout: APIConnectionTimeoutError },
    reasonOf: (error) => error.apiMessage ?? error.type ?? '',
  };
}

export function anthropicClient(endpoint: ModelEndpoint): ModelClient {
  const client = new Anthropic({
    apiKey: endpoint.apiKey,
    // An explicit null keeps the SDK from reading ANTHROPIC_AUTH_TOKEN from this process's environment.
    authToken: null,
    baseURL: endpoint.baseUrl,
    maxRetries: endpoint.maxRetries,
    timeout: endpoint.timeoutMs,
    // Failures reach the run as ModelCallFailed; the SDK's own console warnings would only be noise.
    logLevel: 'off',
    fetch: vendorFetch,
  });
  const failures = failuresAt(endpoint.baseUrl);
  return {
    provider: 'anthropic',
    async call(request: ModelRequest): Promise<ModelReply> {
      const reply = await streamedCall(endpoint, request, failures, async (signal, onBlock) =>
        readReply(await client.messages.create(requestBody(request), { signal }), onBlock, signal, request.onTextDelta),
      );
      if (reply.stop === null) throw new ModelCallFailed(`${VENDOR} ended its answer before saying why it stopped (cut short)`);
      return { content: reply.content, stop: stopOf(reply.stop), usage: tokenUsage(reply.usage) };
    },
  };
}
