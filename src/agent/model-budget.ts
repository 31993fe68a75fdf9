import type { AgentSettings } from '../config.js';
import type { RunAccount, TokenUsage } from '../skills/runtime.js';
import { TokenMeter, tokenCost } from './model-prices.js';
import type { ModelRoute } from './model-route.js';

/**
 * What one agent run (a skill's run, or a thread's turn) may still spend on model calls:
 * its token cap, and on the house key the payer's credits. A call starts only while the
 * balance covers what the last one cost (at least 1 Ds), so a run stops before it
 * overdraws rather than after; each call is charged as soon as it is answered.
 */
export class ModelBudget {
  readonly used: TokenUsage = { input_tokens: 0, output_tokens: 0 };
  readonly #meter = new TokenMeter();
  #lastDue = 1;

  private constructor(
    private readonly settings: AgentSettings,
    private readonly route: ModelRoute,
    private readonly account: RunAccount,
    private readonly charged: boolean,
  ) {}

  /** Calls on the payer's own key, and payers who are not charged, cost nothing. */
  static async open(settings: AgentSettings, route: ModelRoute, account: RunAccount): Promise<ModelBudget> {
    return new ModelBudget(settings, route, account, !route.ownKey && (await account.isCharged()));
  }

  /** Before a call: why it may not be made (the token cap, or credits), or undefined. */
  async refusal(): Promise<'tokens' | 'credits' | undefined> {
    if (this.used.input_tokens + this.used.output_tokens >= this.settings.maxRunTokens) return 'tokens';
    if (this.charged && (await this.account.spendable()) < Math.max(1, this.#lastDue)) return 'credits';
    return undefined;
  }

  /** After a call: counts its tokens and charges it; true when the balance could not cover it all. */
  async settle(usage: TokenUsage): Promise<boolean> {
    this.used.input_tokens += usage.input_tokens;
    this.used.output_tokens += usage.output_tokens;
    if (!this.charged) return false;
    this.#lastDue = this.#meter.add(tokenCost(this.settings.prices, this.route.model, usage));
    return (await this.account.charge(this.#lastDue)) > 0;
  }
}
