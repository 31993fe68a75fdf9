import type { AgentSettings } from '../../config.js';
import type { TokenUsage } from '../../language-models.js';
import { TokenMeter, tokenCost } from '../../model-prices.js';
import {
  ModelCallFailed,
  type ModelClient,
  type ModelReply,
  type ModelRequest,
  type ToolSpec,
  type Turn,
} from '../../models/conversation.js';
import type { ModelRoute } from '../../models/model-route.js';
import type { JournalStep } from '../journal-steps.js';
import type { RunAccount } from '../runtime.js';

/** What a model call sends, as far as its cost goes. */
export interface CallRequest {
  system: string;
  turns: Turn[];
  tools: ToolSpec[];
}

/** Why a call may not be made: the run's token cap, or credits (with what the call needed and what was free). */
export type Refusal = { kind: 'tokens' } | { kind: 'credits'; needed: number; free: number };

/**
 * How one budgeted call went: not made (refused, or `spent`: the previous call's charge took
 * the rest of the balance), stopped by the signal, failed at the vendor, or answered (not yet settled).
 */
export type BudgetedCall =
  | { kind: 'refused'; refusal: Refusal }
  | { kind: 'spent' }
  | { kind: 'aborted' }
  | { kind: 'failed'; error: ModelCallFailed }
  | { kind: 'answered'; reply: ModelReply };

/** A call as the loops describe it; the model, output cap and thinking come from the route and settings. */
export type LoopCallRequest = Omit<ModelRequest, 'model' | 'maxOutputTokens' | 'thinkingBudget'>;

/** Tokens a vendor adds around a request of its own (tool-use instructions, message framing). */
const FRAMING_TOKENS = 1000;

/** Each turn's size as JSON in UTF-8, measured once: turns are never changed once in a conversation (conversation.ts). */
const turnBytes = new WeakMap<Turn, number>();

/**
 * The UTF-8 length of JSON.stringify(turns), exactly, from each turn's own length: the
 * brackets, a comma between turns, and the turns. A run's conversation grows by a turn or
 * two a call, so measuring it whole before every call cost time in the square of its length.
 */
export function conversationBytes(turns: readonly Turn[]): number {
  let bytes = 2 + Math.max(0, turns.length - 1);
  for (const turn of turns) {
    let size = turnBytes.get(turn);
    if (size === undefined) {
      size = Buffer.byteLength(JSON.stringify(turn));
      turnBytes.set(turn, size);
    }
    bytes += size;
  }
  return bytes;
}

/** The tool specs' size as JSON in UTF-8, once per list: a run sends the same list on every call. */
const toolsBytes = new WeakMap<readonly ToolSpec[], number>();

function toolSpecBytes(tools: readonly ToolSpec[]): number {
  let size = toolsBytes.get(tools);
  if (size === undefined) {
    size = Buffer.byteLength(JSON.stringify(tools));
    toolsBytes.set(tools, size);
  }
  return size;
}

/**
 * An upper bound on what a call can cost, in whole Ds, at least 1: its output cap
 * (AGENT_MAX_OUTPUT_TOKENS, thinking included) at the output price, plus its input at the
 * input price, counted as one token per byte of the request (the system prompt, the
 * conversation and the tool specs as JSON, UTF-8) plus FRAMING_TOKENS. A token is never
 * shorter than a byte, so the input is never under-counted; text runs about four bytes a
 * token, so the input part is about four times what it will cost.
 */
export function callCostBound(settings: AgentSettings, model: string, request: CallRequest): number {
  const bytes = Buffer.byteLength(request.system) + conversationBytes(request.turns) + toolSpecBytes(request.tools);
  const usage = { input_tokens: bytes + FRAMING_TOKENS, output_tokens: settings.maxOutputTokens };
  return Math.max(1, Math.ceil(tokenCost(settings.prices, model, usage) - 1e-9));
}

/**
 * The least a first call holds on the house models as configured: the output cap and the
 * vendor's framing at the cheaper default model's prices, with nothing sent (a skill that
 * names a cheaper model of its own may hold less). 0 without house keys.
 */
export function leastFirstCallHold(settings: AgentSettings): number {
  const providers = (['anthropic', 'openai'] as const).filter((provider) => settings[provider].apiKey);
  const holds = providers.map((provider) =>
    callCostBound(settings, settings[provider].model, { system: '', turns: [], tools: [] }),
  );
  return holds.length > 0 ? Math.min(...holds) : 0;
}

/**
 * What one agent run (a skill's run, or a thread's turn) may still spend on model calls:
 * its token cap, and on the house key the payer's credits. Before each call an upper bound
 * of its cost is held against the payer's balance, counting every other hold in flight (the
 * payer's other runs and turns, on any node); a call that cannot be held is not made. After
 * the call its actual cost is charged and the hold let go, in one transaction. So
 * concurrent calls can never together spend more than the balance.
 */
export class ModelBudget {
  readonly used: TokenUsage = { input_tokens: 0, output_tokens: 0 };
  readonly #meter = new TokenMeter();
  /** The hold of the call under way, until it is settled or let go. */
  #hold: string | undefined;

  private constructor(
    private readonly settings: AgentSettings,
    private readonly route: ModelRoute,
    private readonly account: RunAccount,
    private readonly charged: boolean,
  ) {}

  /**
   * Calls on the payer's own key, and payers who are not charged, cost nothing and hold nothing.
   * `earlier`: the calls a resumed run completed before, counted (and their fractions of a D
   * metered) as they were, and charged already.
   */
  static async open(
    settings: AgentSettings,
    route: ModelRoute,
    account: RunAccount,
    earlier: readonly TokenUsage[] = [],
  ): Promise<ModelBudget> {
    const budget = new ModelBudget(settings, route, account, !route.ownKey && (await account.isCharged()));
    for (const usage of earlier) {
      budget.#count(usage);
      budget.#meter.add(tokenCost(settings.prices, route.model, usage));
    }
    return budget;
  }

  #count(usage: TokenUsage): void {
    this.used.input_tokens += usage.input_tokens;
    this.used.output_tokens += usage.output_tokens;
  }

  /**
   * One model call of a run's or a turn's loop: held first, and let go if it fails or is
   * stopped. An answered call is the caller's to `settle` once it has handed on the answer.
   * `afterCharge`, the previous call's settling: the hold is asked for beside that charge
   * rather than after it, and the call is made only once the charge is in and left
   * something; a hold refused before the charge let the previous hold go is asked for again.
   */
  call(client: ModelClient, request: LoopCallRequest): Promise<Exclude<BudgetedCall, { kind: 'spent' }>>;
  call(client: ModelClient, request: LoopCallRequest, afterCharge: Promise<boolean> | undefined): Promise<BudgetedCall>;
  async call(client: ModelClient, request: LoopCallRequest, afterCharge?: Promise<boolean>): Promise<BudgetedCall> {
    const [spent, early] = await Promise.all([afterCharge, this.reserve(request)]);
    if (spent) {
      await this.release();
      return { kind: 'spent' };
    }
    const refusal = early && afterCharge ? await this.reserve(request) : early;
    if (refusal) return { kind: 'refused', refusal };
    try {
      const reply = await client.call({
        ...request,
        model: this.route.model,
        maxOutputTokens: this.settings.maxOutputTokens,
        thinkingBudget: this.route.provider === 'anthropic' ? this.settings.thinkingBudget : 0,
      });
      return { kind: 'answered', reply };
    } catch (error) {
      await this.release();
      if (request.signal.aborted) return { kind: 'aborted' };
      if (error instanceof ModelCallFailed) return { kind: 'failed', error };
      throw error;
    }
  }

  /** Before a call: holds what it may cost; why it may not be made (nothing is held then), or undefined. */
  async reserve(request: CallRequest): Promise<Refusal | undefined> {
    if (this.used.input_tokens + this.used.output_tokens >= this.settings.maxRunTokens) return { kind: 'tokens' };
    if (!this.charged) return undefined;
    const needed = callCostBound(this.settings, this.route.model, request);
    this.#hold = await this.account.hold(needed);
    if (this.#hold !== undefined) return undefined;
    return { kind: 'credits', needed, free: Math.max(0, await this.account.spendable()) };
  }

  /**
   * After a call: counts its tokens, charges it and lets its hold go, journaling `step` in
   * the charge's transaction (a call is charged exactly when it is journaled); true when
   * the balance could not cover it all.
   */
  async settle(usage: TokenUsage, step?: JournalStep): Promise<boolean> {
    this.#count(usage);
    const hold = this.#hold;
    this.#hold = undefined;
    const due = this.charged ? this.#meter.add(tokenCost(this.settings.prices, this.route.model, usage)) : 0;
    if (!this.charged && step === undefined) return false;
    return (await this.account.charge(due, hold, step)) > 0;
  }

  /** A call that failed or was stopped: its hold is let go, nothing charged. */
  async release(): Promise<void> {
    const hold = this.#hold;
    this.#hold = undefined;
    if (hold !== undefined) await this.account.release(hold);
  }
}

/** The reason a run or turn ends with when its next call could not be held. */
export function outOfCreditsReason(refusal: { needed: number; free: number }): string {
  return (
    `Out of credits: the next model call needs up to ${refusal.needed} Ds and ${refusal.free} Ds are free ` +
    '(credits held for your other runs and replies under way come back when they finish). Buy a credit pack to go on.'
  );
}
