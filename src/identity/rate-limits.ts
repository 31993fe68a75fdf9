import type { Config } from '../config.js';
import type { AppContext } from '../context.js';
import { RateLimited } from '../errors.js';
import type { Caller } from '../ports/callers.js';
import type { RateDecision, RateRule, WindowRule } from '../ports/rate-limits.js';
import { strategyOf } from './credential-strategies.js';

/**
 * The per-minute limits as rules, and the decisions domain code asks for itself (an MCP
 * tool or an agent starting a run has no HTTP reply to carry headers); identity/request-limits.ts
 * applies the same rules to requests.
 */

/** The limiter rules of one configuration, built once rather than on every request. */
interface Rules {
  rest: RateRule;
  /** A window: a batch refused whole gives back its first message's hit (RateLimitStore.release). */
  mcp: WindowRule;
  webhook: RateRule;
  executionStarts: RateRule;
  activationCreate: RateRule;
  poll: RateRule;
}

/** What counting a request needs: the limiter's store, the time, and the limits configured. */
export type Limiter = Pick<AppContext, 'rateLimits' | 'clock' | 'config'>;

const rulesByConfig = new WeakMap<Config, Rules>();

export function rulesOf(config: Config): Rules {
  let rules = rulesByConfig.get(config);
  if (!rules) {
    const limits = config.rateLimits;
    rules = {
      rest: { kind: 'window', limit: limits.restPerMinute, windowMs: 60_000 },
      mcp: { kind: 'window', limit: limits.mcpPerMinute, windowMs: 60_000 },
      webhook: { kind: 'window', limit: limits.webhookPerMinute, windowMs: 60_000 },
      executionStarts: { kind: 'window', limit: limits.executionsPerMinute, windowMs: 60_000 },
      activationCreate: { kind: 'bucket', capacity: 1, intervalMs: limits.activationCreateIntervalMs },
      poll: { kind: 'bucket', capacity: limits.pollBurst, intervalMs: 1000 / limits.pollPerSecond },
    };
    rulesByConfig.set(config, rules);
  }
  return rules;
}

export const EXECUTIONS_LIMIT_MESSAGE = 'Too many executions started; wait a moment';

/** A credential's key within a limiter's prefix, as its strategy names it. */
export const callerKey = (prefix: string, caller: Caller) => `${prefix}:${strategyOf(caller.kind).rateLimitKey(caller)}`;

export function refusalOf(decision: RateDecision, message: string): RateLimited | null {
  return decision.allowed ? null : new RateLimited(message, Math.ceil(decision.retryAfterMs / 1000));
}

/**
 * The same execution-start limit for a start that has no reply of its own to carry the
 * headers (an MCP tool call: its response may already be streaming). Shares the REST
 * starts' counter, so a credential has one allowance of starts whichever way it starts them.
 */
export async function limitCallerExecutionStarts(ctx: Limiter, caller: Caller): Promise<void> {
  const decision = await ctx.rateLimits.consume(
    callerKey('executions', caller),
    rulesOf(ctx.config).executionStarts,
    ctx.clock.nowMs(),
  );
  const refusal = refusalOf(decision, EXECUTIONS_LIMIT_MESSAGE);
  if (refusal) throw refusal;
}
