import type { TokenUsage } from '../language-models.js';

/**
 * The agent loop's own picture of a conversation, the same for every provider: each
 * provider client translates it to its vendor's wire shape and back.
 */
export type ContentBlock =
  | { type: 'text'; text: string }
  /** `signature` (or `redacted`, for a block the vendor hid) goes back to the vendor unchanged. */
  | { type: 'thinking'; thinking: string; signature: string; redacted?: string }
  | { type: 'tool_call'; id: string; name: string; input: Record<string, unknown> };

/** A picture a tool hands the model (the computer's `read` of an image file). */
export interface ToolImage {
  mediaType: string;
  /** base64 */
  data: string;
}

export interface ToolResult {
  callId: string;
  name: string;
  output: string;
  isError: boolean;
  /** Given to the model as a picture where its provider takes one in a tool result. */
  image?: ToolImage;
}

/** A step of a conversation. A turn is complete when it joins one and is never changed after: a call's cost bound measures each turn once (model-budget.ts). */
export type Turn =
  | { role: 'user'; text: string }
  | { role: 'assistant'; content: ContentBlock[] }
  | { role: 'tool'; results: ToolResult[] };

/** A tool as the model sees it; `inputSchema` is a JSON Schema object. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
}

export type Provider = 'anthropic' | 'openai';

export interface ModelRequest {
  model: string;
  system: string;
  turns: Turn[];
  tools: ToolSpec[];
  maxOutputTokens: number;
  /** Tokens the model may think with before answering (Anthropic); 0 turns thinking off. */
  thinkingBudget: number;
  /** Aborting closes the vendor connection; the call rejects. */
  signal: AbortSignal;
  /** Each block as soon as the vendor finishes sending it, in order. */
  onBlock: (block: ContentBlock) => void;
  /**
   * Each piece of answer text as the vendor sends it, before its block closes (an agent
   * thread streams these to its subscribers); the block still reaches onBlock whole.
   */
  onTextDelta?: (text: string) => void;
}

/** Why the model stopped: done, wants its tool calls answered, ran out of room, or other. */
export type ModelStop = 'end_turn' | 'tool_use' | 'max_tokens' | 'other';

export interface ModelReply {
  content: ContentBlock[];
  stop: ModelStop;
  usage: TokenUsage;
}

export interface ModelClient {
  readonly provider: Provider;
  call(request: ModelRequest): Promise<ModelReply>;
}

/** Where and how a client reaches its vendor. */
export interface ModelEndpoint {
  apiKey: string;
  baseUrl: string;
  maxRetries: number;
  timeoutMs: number;
}

/**
 * A model call that failed for good (after the SDK's retries), with a message fit for the
 * run's agent.info; never the key. A call aborted through its signal rejects with the
 * signal's reason instead.
 */
export class ModelCallFailed extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * A tool call's input as the model streamed it (JSON text). Anything but a JSON object
 * reaches the tool layer as `{_invalid_json}`, so the model is answered with an error
 * instead of the run failing.
 */
export function toolInputOf(raw: string): Record<string, unknown> {
  if (raw.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { ...value };
  } catch {
    // Falls through to the marker below.
  }
  return { _invalid_json: raw };
}
