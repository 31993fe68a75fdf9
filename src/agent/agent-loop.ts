import type { AgentSettings } from '../config.js';
import type { RunAccount, RunMessage, RunOutcome, RunResult } from '../skills/runtime.js';
import type { ContentBlock, ModelClient, ToolResult, ToolSpec, Turn } from './conversation.js';
import { ModelBudget, outOfCreditsReason } from './model-budget.js';
import { modelCallFailure } from './model-call-failures.js';
import type { ModelRoute } from './model-route.js';
import { runAgentTool, type ToolContext, toolLabel } from './tools.js';

export interface AgentRun {
  client: ModelClient;
  route: ModelRoute;
  settings: AgentSettings;
  system: string;
  input: string;
  tools: ToolSpec[];
  toolContext: ToolContext;
  account: RunAccount;
  /** Aborted on interrupt, cancel or the run's time limit; `stopReason` tells which. */
  signal: AbortSignal;
  onMessage: (message: RunMessage) => Promise<void>;
}

const SUMMARY_CHARS = 280;

/** The abort reason of a run that went over one of its limits (time, or what the kernel holds it to), as opposed to one a person stopped. */
export class RunOverLimit extends Error {}

function abortedOutcome(signal: AbortSignal): RunOutcome {
  return signal.reason instanceof RunOverLimit ? { kind: 'failed', reason: signal.reason.message } : { kind: 'stopped' };
}

/** The run's one-line account of itself: the start of the model's last words. */
function summaryOf(content: ContentBlock[]): string {
  const text = content.findLast((block) => block.type === 'text')?.text.trim() ?? '';
  const line =
    text
      .split('\n')
      .find((part) => part.trim() !== '')
      ?.trim() ?? '';
  return line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS - 1)}…` : line;
}

/**
 * Messages reach the runner in order, one at a time, while the vendor's stream goes on: a
 * finished block is handed over at once and the next waits behind it.
 */
class MessageQueue {
  #tail: Promise<void> = Promise.resolve();
  constructor(private readonly deliver: (message: RunMessage) => Promise<void>) {}

  push(message: RunMessage): void {
    this.#tail = this.#tail.then(() => this.deliver(message));
  }

  drained(): Promise<void> {
    return this.#tail;
  }
}

function blockMessage(block: ContentBlock): RunMessage | undefined {
  if (block.type === 'text') return block.text.trim() === '' ? undefined : { type: 'message', text: block.text };
  if (block.type === 'thinking') return { type: 'thinking' };
  return undefined;
}

/**
 * The agent loop: the model answers, its tool calls are run and answered, until it ends its
 * turn. A model call on the house key starts only once an upper bound of its cost is held
 * against the payer's credits (model-budget.ts), and is charged as soon as it is answered,
 * so a run stops before it overdraws rather than after, whatever else the payer runs.
 */
export async function runAgent(run: AgentRun): Promise<RunResult> {
  const { settings, route, account, signal } = run;
  const queue = new MessageQueue(run.onMessage);
  const turns: Turn[] = [{ role: 'user', text: run.input }];
  const budget = await ModelBudget.open(settings, route, account);
  let last: ContentBlock[] = [];
  const end = async (outcome: RunOutcome): Promise<RunResult> => {
    await queue.drained();
    return { outcome, tokenUsage: budget.used, summary: outcome.kind === 'completed' ? summaryOf(last) : '' };
  };

  for (let call = 1; call <= settings.maxTurns; call++) {
    if (signal.aborted) return end(abortedOutcome(signal));
    const step = await budget.call(run.client, {
      system: run.system,
      turns,
      tools: run.tools,
      signal,
      onBlock: (block) => {
        const message = blockMessage(block);
        if (message) queue.push(message);
      },
    });
    if (step.kind === 'refused') {
      const { refusal } = step;
      if (refusal.kind === 'credits') return end({ kind: 'limit_reached', reason: outOfCreditsReason(refusal) });
      return end({
        kind: 'failed',
        reason: `the run used its limit of ${settings.maxRunTokens} model tokens (AGENT_MAX_RUN_TOKENS)`,
      });
    }
    if (step.kind === 'aborted') return end(abortedOutcome(signal));
    if (step.kind === 'failed') return end(modelCallFailure(step.error, route, call));
    const { reply } = step;
    queue.push({ type: 'model_call', usage: reply.usage });
    if (await budget.settle(reply.usage)) {
      return end({
        kind: 'limit_reached',
        reason: 'Out of credits: this run used the rest of your balance. Buy a credit pack to go on.',
      });
    }
    last = reply.content;
    turns.push({ role: 'assistant', content: reply.content });
    const calls = reply.content.filter((block) => block.type === 'tool_call');
    if (calls.length === 0) return end({ kind: 'completed' });

    const results: ToolResult[] = [];
    for (const toolCall of calls) {
      queue.push({ type: 'tool_call', id: toolCall.id, name: toolCall.name, label: toolLabel(toolCall) });
      const result = await runAgentTool(toolCall, run.toolContext);
      results.push({ callId: toolCall.id, name: toolCall.name, ...result });
      if (signal.aborted) return end(abortedOutcome(signal));
    }
    turns.push({ role: 'tool', results });
  }
  return end({ kind: 'failed', reason: `the run reached its limit of ${settings.maxTurns} model calls (AGENT_MAX_TURNS)` });
}
