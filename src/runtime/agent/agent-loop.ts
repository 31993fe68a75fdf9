import type { AgentSettings } from '../../config.js';
import type { ContentBlock, ModelClient, ToolResult, ToolSpec } from '../../models/conversation.js';
import type { ModelRoute } from '../../models/model-route.js';
import type { RunFolders, RunJournal } from '../journal-steps.js';
import type { RunAccount, RunMessage, RunOutcome, RunResult } from '../runtime.js';
import { type PendingTools, replayJournal, type ToolCallBlock } from './journal-replay.js';
import { ModelBudget, outOfCreditsReason } from './model-budget.js';
import { modelCallFailure } from './model-call-failures.js';
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
  /** Where the run's steps are journaled, with what an earlier attempt completed; none for a run that cannot resume. */
  journal?: RunJournal;
  /** Tools whose effects reach outside the sandbox: journaled as they start, never repeated blindly. */
  outsideEffects: readonly string[];
  /** The run's folders as they stand now (its computer's /workspace appears once the computer does). */
  folders: () => RunFolders;
  /** Aborted on interrupt, cancel or the run's time limit; `stopReason` tells which. */
  signal: AbortSignal;
  onMessage: (message: RunMessage) => Promise<void>;
}

const SUMMARY_CHARS = 280;
const SPENT: RunOutcome = {
  kind: 'limit_reached',
  reason: 'Out of credits: this run used the rest of your balance. Buy a credit pack to go on.',
};

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
 * Hands the run's messages on in order as they come, while the vendor's stream goes on,
 * without waiting for the one before to be stored: the handler keeps their order and stores
 * those that arrive while it writes together (RunRequest.onMessage), so a tool turn's
 * messages do not take a write each, one after another.
 */
class MessageQueue {
  readonly #delivered: Promise<void>[] = [];
  constructor(private readonly deliver: (message: RunMessage) => Promise<void>) {}

  push(message: RunMessage): void {
    const delivered = this.deliver(message);
    delivered.catch(() => undefined); // read by drained(), at the run's end
    this.#delivered.push(delivered);
  }

  /** Settles once every message handed on is stored; rejects with the first that could not be. */
  async drained(): Promise<void> {
    await Promise.all(this.#delivered);
  }
}

function blockMessage(block: ContentBlock): RunMessage | undefined {
  if (block.type === 'text') return block.text.trim() === '' ? undefined : { type: 'message', text: block.text };
  if (block.type === 'thinking') return { type: 'thinking' };
  return undefined;
}

/** What the model is told of a call with outside effects that was under way when the run's worker was lost. */
const LOST_CALL_RESULT =
  'This call was under way when the run moved to another worker: it may have happened, and its result was lost. ' +
  'Check whether it did before you repeat it.';

function resumedInfo(pause: number | undefined, modelCalls: number): string {
  // Its worker died, was cut off, or lost its database mid-step.
  const lost = 'the worker running this run was lost';
  if (modelCalls === 0) {
    return `Resumed on another worker: ${lost} before its first model call was answered, so the run starts again from its beginning.`;
  }
  const kept = modelCalls === 1 ? 'The model call it had completed was' : `The ${modelCalls} model calls it had completed were`;
  const after = pause === undefined ? '' : ` after ${pause} s`;
  return `Resumed on another worker${after}: ${lost}. ${kept} kept, with their tool results, and not charged again.`;
}

/**
 * The agent loop: the model answers, its tool calls are run and answered, until it ends its
 * turn. A model call on the house key starts only once an upper bound of its cost is held
 * against the payer's credits (model-budget.ts), and is charged as soon as it is answered,
 * so a run stops before it overdraws rather than after, whatever else the payer runs.
 * Each completed step is journaled; a run resumed on another worker starts from its journal,
 * repeating no completed call.
 */
export async function runAgent(run: AgentRun): Promise<RunResult> {
  const { settings, route, account, signal, journal } = run;
  const queue = new MessageQueue(run.onMessage);
  const replayed = replayJournal(run.input, journal?.steps ?? []);
  const { turns } = replayed;
  const budget = await ModelBudget.open(settings, route, account, replayed.usages);
  let last = replayed.last;
  // The charge of the latest answer, committing while its tools run (see below).
  let charging: Promise<boolean> | undefined;
  const end = async (outcome: RunOutcome): Promise<RunResult> => {
    // The run's cost is read at its end: its last charge is in it.
    await charging;
    await queue.drained();
    return { outcome, tokenUsage: budget.used, summary: outcome.kind === 'completed' ? summaryOf(last) : '' };
  };
  if (journal?.resumedFrom)
    queue.push({ type: 'info', message: resumedInfo(journal.resumedFrom.pauseSeconds, replayed.modelCalls) });
  if (replayed.finished) return end({ kind: 'completed' });

  // A spent balance ends the run before any other reason to stop does.
  const unlessSpent = async (outcome: RunOutcome) => ((await charging) ? SPENT : outcome);
  let pending = replayed.pending;
  for (let call = replayed.modelCalls + 1; ; call++) {
    if (pending) {
      const results = await answerTools(run, pending, queue, charging);
      if (!results) return end(abortedOutcome(signal));
      turns.push({ role: 'tool', results });
    }
    if (call > settings.maxTurns) {
      return end(
        await unlessSpent({
          kind: 'failed',
          reason: `the run reached its limit of ${settings.maxTurns} model calls (AGENT_MAX_TURNS)`,
        }),
      );
    }
    if (signal.aborted) return end(await unlessSpent(abortedOutcome(signal)));
    const request = {
      system: run.system,
      turns,
      tools: run.tools,
      signal,
      onBlock: (block: ContentBlock) => {
        const message = blockMessage(block);
        if (message) queue.push(message);
      },
    };
    // The next call's hold goes in beside the last call's charge, which it waits for.
    const step = await budget.call(run.client, request, charging);
    if (step.kind === 'spent') return end(SPENT);
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
    // The call is charged (and journaled) while its tools run: its hold already covers the
    // most it can cost, and the next call is made only once the charge is in. A tool is
    // journaled, or started when its effects reach outside, only once the charge is in too.
    charging = budget.settle(reply.usage, { kind: 'model_reply', content: reply.content, usage: reply.usage });
    charging.catch(() => undefined); // awaited below or at the end; this keeps a failure from going unhandled meanwhile
    last = reply.content;
    turns.push({ role: 'assistant', content: reply.content });
    const calls = reply.content.filter((block): block is ToolCallBlock => block.type === 'tool_call');
    if (calls.length === 0) return end(await unlessSpent({ kind: 'completed' }));
    pending = { calls, results: [], started: new Set() };
  }
}

/**
 * Runs the tool calls of the latest answer that have no result yet, journaling each; those
 * with outside effects are journaled as they start. One that started on a lost worker is
 * not run again: the model hears that it may have happened. Undefined once the run is stopped.
 * `charged`: the answer's charge (true when the balance could not cover it), which journals
 * the answer, so nothing of its tools is journaled before it.
 */
async function answerTools(
  run: AgentRun,
  pending: PendingTools,
  queue: MessageQueue,
  charged: Promise<boolean> | undefined,
): Promise<ToolResult[] | undefined> {
  const results = [...pending.results];
  const answered = new Set(results.map((result) => result.callId));
  for (const toolCall of pending.calls) {
    if (answered.has(toolCall.id)) continue;
    let result: ToolResult;
    if (pending.started.has(toolCall.id)) {
      queue.push({
        type: 'info',
        message: `${toolLabel(toolCall)} was under way when the run moved to another worker; it may have happened, so it was not repeated.`,
      });
      result = { callId: toolCall.id, name: toolCall.name, output: LOST_CALL_RESULT, isError: true };
    } else {
      queue.push({ type: 'tool_call', id: toolCall.id, name: toolCall.name, label: toolLabel(toolCall) });
      if (run.outsideEffects.includes(toolCall.name)) {
        // Nothing reaches outside once the balance is spent: the loop ends the run on it.
        if (await charged) return results;
        await run.journal?.toolStarted(toolCall.id, toolCall.name);
      }
      result = { callId: toolCall.id, name: toolCall.name, ...(await runAgentTool(toolCall, run.toolContext)) };
    }
    if (run.signal.aborted) return undefined;
    if (run.journal) {
      // The answer is journaled by its charge: its tools' results come after it.
      await charged;
      await run.journal.toolAnswered(result, run.folders());
    }
    results.push(result);
  }
  return results;
}
