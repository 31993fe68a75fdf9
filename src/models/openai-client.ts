import { randomUUID } from 'node:crypto';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import {
  type ContentBlock,
  ModelCallFailed,
  type ModelClient,
  type ModelEndpoint,
  type ModelReply,
  type ModelRequest,
  type ModelStop,
  type Turn,
  toolInputOf,
} from './conversation.js';
import { hostOf, streamedCall, type VendorFailures } from './model-errors.js';
import { vendorFetch } from './vendor-fetch.js';

function messages(request: ModelRequest): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = request.system === '' ? [] : [{ role: 'system', content: request.system }];
  for (const turn of request.turns) out.push(...messagesOf(turn));
  return out;
}

function messagesOf(turn: Turn): ChatCompletionMessageParam[] {
  if (turn.role === 'user') return [{ role: 'user', content: turn.text }];
  if (turn.role === 'tool') {
    // Chat Completions has no error flag on a tool result: the words must tell the model.
    return turn.results.map((result) => ({
      role: 'tool' as const,
      tool_call_id: result.callId,
      content: result.isError && !/^error\b/i.test(result.output) ? `Error: ${result.output}` : result.output,
    }));
  }
  // Thinking stays here: Chat Completions takes no reasoning back.
  const text = turn.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  const calls = turn.content.flatMap((block) =>
    block.type === 'tool_call'
      ? [{ id: block.id, type: 'function' as const, function: { name: block.name, arguments: JSON.stringify(block.input) } }]
      : [],
  );
  if (calls.length === 0) return [{ role: 'assistant', content: text }];
  return [{ role: 'assistant', content: text === '' ? null : text, tool_calls: calls }];
}

function requestBody(request: ModelRequest): ChatCompletionCreateParamsStreaming {
  const body: ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages: messages(request),
    // Not max_completion_tokens: most compatible servers (Ollama, vLLM, llama.cpp) know only this one.
    max_tokens: request.maxOutputTokens,
    stream: true,
    stream_options: { include_usage: true },
  };
  // OpenAI refuses an empty tools list.
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    }));
  }
  return body;
}

function stopOf(reason: string): ModelStop {
  if (reason === 'stop') return 'end_turn';
  if (reason === 'tool_calls') return 'tool_use';
  if (reason === 'length') return 'max_tokens';
  return 'other';
}

/**
 * Compatible servers stream reasoning in fields the SDK's types lack: `reasoning_content`
 * (vLLM, DeepSeek, llama.cpp) or `reasoning` (Ollama, OpenRouter).
 */
function reasoningOf(delta: ChatCompletionChunk.Choice.Delta): string {
  if ('reasoning_content' in delta && typeof delta.reasoning_content === 'string') return delta.reasoning_content;
  if ('reasoning' in delta && typeof delta.reasoning === 'string') return delta.reasoning;
  return '';
}

/** Reads one streamed reply: text and reasoning handed on as each closes, tool calls at the end. */
async function readReply(
  stream: AsyncIterable<ChatCompletionChunk>,
  onBlock: ModelRequest['onBlock'],
  signal: AbortSignal,
  onTextDelta?: ModelRequest['onTextDelta'],
) {
  const content: ContentBlock[] = [];
  const emit = (block: ContentBlock) => {
    content.push(block);
    onBlock(block);
  };
  // The text or reasoning being streamed now; a delta of another kind closes it.
  let open: { kind: 'text' | 'thinking'; text: string } | undefined;
  const close = () => {
    if (open?.kind === 'text') emit({ type: 'text', text: open.text });
    if (open?.kind === 'thinking') emit({ type: 'thinking', thinking: open.text, signature: '' });
    open = undefined;
  };
  const append = (kind: 'text' | 'thinking', piece: string) => {
    if (open?.kind !== kind) close();
    open ??= { kind, text: '' };
    open.text += piece;
  };
  const calls = new Map<number, { id: string; name: string; args: string }>();
  let finish: string | null = null;
  let usage = { input_tokens: 0, output_tokens: 0 };
  for await (const chunk of stream) {
    // Chunks already buffered still arrive after an abort: none may reach onBlock.
    signal.throwIfAborted();
    if (chunk.usage) usage = { input_tokens: chunk.usage.prompt_tokens, output_tokens: chunk.usage.completion_tokens };
    const choice = chunk.choices[0];
    if (!choice) continue;
    const reasoning = reasoningOf(choice.delta);
    if (reasoning !== '') append('thinking', reasoning);
    if (choice.delta.content) {
      append('text', choice.delta.content);
      onTextDelta?.(choice.delta.content);
    }
    for (const part of choice.delta.tool_calls ?? []) {
      close();
      const call = calls.get(part.index) ?? { id: '', name: '', args: '' };
      calls.set(part.index, call);
      // As the SDK's own accumulator does: id and name arrive whole, arguments in pieces.
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name = part.function.name;
      call.args += part.function?.arguments ?? '';
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  // The SDK's stream ends quietly, without throwing, when its signal aborts.
  signal.throwIfAborted();
  close();
  for (const [, call] of [...calls].sort(([a], [b]) => a - b)) {
    // A server that sends no id still needs one the tool result can answer to.
    emit({ type: 'tool_call', id: call.id || `call_${randomUUID()}`, name: call.name, input: toolInputOf(call.args) });
  }
  return { content, finish, usage };
}

/** Who answered, for the messages: OpenAI itself or some compatible server. */
function vendorOf(baseUrl: string): string {
  const host = hostOf(baseUrl);
  if (host === undefined) return 'the OpenAI-compatible server';
  return host === 'api.openai.com' ? 'the OpenAI API' : `the OpenAI-compatible server at ${host}`;
}

/** The vendor's own words: OpenAI's error.message, a bare error string (Ollama), or the raw body. */
function vendorReason(error: APIError): string {
  const body: unknown = error.error;
  if (typeof body === 'string') return body;
  if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string') return body.message;
  return error.message.replace(/^\d{3} /, '').replace('status code (no body)', '');
}

function failuresAt(baseUrl: string): VendorFailures<APIError> {
  const vendor = vendorOf(baseUrl);
  return {
    vendor,
    reachable: vendor,
    classes: { api: APIError, connection: APIConnectionError, timeout: APIConnectionTimeoutError },
    reasonOf: vendorReason,
  };
}

export function openaiClient(endpoint: ModelEndpoint): ModelClient {
  const client = new OpenAI({
    // A local server (Ollama, llama.cpp) takes no key, but the SDK refuses to start without one.
    apiKey: endpoint.apiKey === '' ? 'none' : endpoint.apiKey,
    // Explicit nulls, so the SDK reads no OPENAI_* identity of this process into a run's calls.
    organization: null,
    project: null,
    baseURL: endpoint.baseUrl,
    maxRetries: endpoint.maxRetries,
    timeout: endpoint.timeoutMs,
    // Failures reach the run as ModelCallFailed; the SDK's own console warnings would only be noise.
    logLevel: 'off',
    fetch: vendorFetch,
  });
  const failures = failuresAt(endpoint.baseUrl);
  return {
    provider: 'openai',
    async call(request: ModelRequest): Promise<ModelReply> {
      const reply = await streamedCall(endpoint, request, failures, async (signal, onBlock) =>
        readReply(await client.chat.completions.create(requestBody(request), { signal }), onBlock, signal, request.onTextDelta),
      );
      if (reply.finish === null) {
        throw new ModelCallFailed(`${failures.vendor} ended its answer before saying why it stopped (cut short)`);
      }
      return { content: reply.content, stop: stopOf(reply.finish), usage: reply.usage };
    },
  };
}
