import { randomUUID } from 'node:crypto';
import type { AgentSettings } from '../config.js';
import type { ContentBlock, ModelClient, ToolResult, ToolSpec, Turn } from '../models/conversation.js';
import type { ModelRoute } from '../models/model-route.js';
import type { ThreadRecord, ThreadSink } from '../ports/thread-records.js';
import { ModelBudget, outOfCreditsReason } from '../runtime/agent/model-budget.js';
import type { RunAccount } from '../runtime/runtime.js';
import type { ThreadToolOutcome } from './thread-tools.js';

export interface ThreadTurnRun {
  client: ModelClient;
  route: ModelRoute;
  settings: AgentSettings;
  system: string;
  /** The thread's history as a conversation, ending with a user turn. */
  turns: Turn[];
  tools: ToolSpec[];
  runTool: (call: { name: string; input: Record<string, unknown> }) => Promise<ThreadToolOutcome>;
  account: RunAccount;
  sink: ThreadSink;
  signal: AbortSignal;
}

/** How a turn ended, for its agent.turn_end record. */
export interface TurnEnding {
  stopReason: 'end_turn' | 'error' | 'limit_reached';
  reason?: string;
  /** The reply the turn ended on (its last model answer), or a new id when it made none. */
  messageId: string;
}

/**
 * Records reach the sink in order, one append at a time, while the vendor's stream goes
 * on: the client hands over finished blocks synchronously, and an append is a store write.
 * The first failed append is kept and thrown from `drained`, so a broken sink ends the turn.
 */
class RecordQueue {
  #tail: Promise<void> = Promise.resolve();
  #failure: unknown;

  constructor(private readonly sink: ThreadSink) {}

  /** Appends what `records` gives when the append's turn comes (so text arriving meanwhile joins it). */
  push(records: ThreadRecord[] | (() => ThreadRecord[])): void {
    this.#tail = this.#tail.then(async () => {
      if (this.#failure !== undefined) return;
      const now = typeof records === 'function' ? records() : records;
      if (now.length === 0) return;
      try {
        await this.sink.append(now);
      } catch (error) {
        this.#failure = error;
      }
    });
  }

  async drained(): Promise<void> {
    await this.#tail;
    this.throwIfFailed();
  }

  /** Stops a turn whose records cannot be stored before it pays for another model call. */
  throwIfFailed(): void {
    if (this.#failure !== undefined) throw this.#failure;
  }
}

/**
 * One answer's text as agent.chunk records, as finely as appends keep up: a piece that
 * arrives while an append is under way waits and goes with the pieces after it, so a fast
 * vendor makes few, longer chunks and a slow one many short ones, never a store write per
 * token behind. A client that gives no pieces (onTextDelta is optional) gives one chunk per
 * text block when the block closes.
 */
class ChunkStream {
  #pending = '';
  #piecesInBlock = false;

  constructor(
    private readonly queue: RecordQueue,
    readonly messageId: string,
  ) {}

  delta(piece: string): void {
    if (piece === '') return;
    this.#piecesInBlock = true;
    // An empty buffer means no append is waiting to take it: queue one.
    if (this.#pending === '') this.queue.push(() => this.#take());
    this.#pending += piece;
  }

  blockClosed(text: string): void {
    if (!this.#piecesInBlock && text !== '') this.delta(text);
    this.#piecesInBlock = false;
  }

  #take(): ThreadRecord[] {
    const text = this.#pending;
    this.#pending = '';
    return text === '' ? [] : [{ type: 'agent.chunk', messageId: this.messageId, text }];
  }
}

/** Why the turn stopped when its signal aborted: the reason given, unless it is the bare default. */
export function abortedReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  const told = reason instanceof Error && reason.name !== 'AbortError' && reason.message !== '' ? `: ${reason.message}` : '';
  return `The turn was stopped before it finished${told}`;
}

const textOf = (content: ContentBlock[]) => content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');

/**
 * One turn of a thread's agent: the model answers, its tool calls are run and answered,
 * until it ends its turn. Like a skill run's loop (agent-loop.ts), a model call on the house
 * key starts only once an upper bound of its cost is held against the payer's credits, and
 * is charged as soon as it is answered, so a turn stops before it overdraws rather than after.
 * Each answer's text is appended as agent.chunk records while it streams, then as one
 * agent.message; each tool call ends in a tool.result record.
 */
export async function runTurnLoop(run: ThreadTurnRun): Promise<TurnEnding> {
  const { settings, route, account, signal } = run;
  const queue = new RecordQueue(run.sink);
  const turns = [...run.turns];
  const budget = await ModelBudget.open(settings, route, account);
  let messageId = randomUUID();
  const end = async (stopReason: TurnEnding['stopReason'], reason?: string): Promise<TurnEnding> => {
    await queue.drained();
    return reason === undefined ? { stopReason, messageId } : { stopReason, reason, messageId };
  };
  const stopped = () => end('error', abortedReason(signal));

  for (let call = 1; call <= settings.maxTurns; call++) {
    if (signal.aborted) return stopped();
    queue.throwIfFailed();
    const nextMessageId = randomUUID();
    const chunks = new ChunkStream(queue, nextMessageId);
    const step = await budget.call(run.client, {
      system: run.system,
      turns,
      tools: run.tools,
      signal,
      onTextDelta: (piece) => chunks.delta(piece),
      onBlock: (block) => {
        if (block.type === 'text') chunks.blockClosed(block.text);
      },
    });
    if (step.kind === 'refused') {
      const { refusal } = step;
      if (refusal.kind === 'credits') return end('limit_reached', outOfCreditsReason(refusal));
      return end('limit_reached', `The turn used its limit of ${settings.maxRunTokens} model tokens (AGENT_MAX_RUN_TOKENS)`);
    }
    messageId = nextMessageId;
    if (step.kind === 'aborted') return stopped();
    if (step.kind === 'failed') return end('error', `The model call failed: ${step.error.message}`);
    const { reply } = step;
    const text = textOf(reply.content);
    // Whatever went out as chunks is closed by its message, even text that is only blank.
    if (text !== '') queue.push([{ type: 'agent.message', messageId: chunks.messageId, text }]);
    if (await budget.settle(reply.usage)) {
      return end('limit_reached', 'Out of credits: this turn used the rest of your balance. Buy a credit pack to go on.');
    }
    turns.push({ role: 'assistant', content: reply.content });
    const calls = reply.content.filter((block) => block.type === 'tool_call');
    if (calls.length === 0) return end('end_turn');

    const results: ToolResult[] = [];
    for (const toolCall of calls) {
      let outcome: ThreadToolOutcome;
      try {
        // Earlier records first: an approval request must follow the text that led to it.
        await queue.drained();
        outcome = await run.runTool(toolCall);
      } catch (error) {
        if (signal.aborted) return stopped();
        throw error;
      }
      queue.push([
        { type: 'tool.result', callId: toolCall.id, tool: toolCall.name, status: outcome.status, summary: outcome.summary },
      ]);
      results.push({ callId: toolCall.id, name: toolCall.name, output: outcome.output, isError: outcome.isError });
      if (signal.aborted) return stopped();
    }
    turns.push({ role: 'tool', results });
  }
  return end('limit_reached', `The turn reached its limit of ${settings.maxTurns} model calls (AGENT_MAX_TURNS)`);
}
