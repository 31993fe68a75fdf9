import type { AppContext } from '../context.js';
import { RateLimited } from '../errors.js';
import type { RateRule } from '../ports/rate-limits.js';
import { sha256Hex } from '../secrets.js';

/**
 * Failed sign-ins are counted per account, on top of the per-address REST limit, so that
 * guessing one person's password from many addresses stops paying. The counter is keyed by
 * the normalized email whether or not an account has it (a refusal must not tell which
 * emails exist), and by its hash, so no email sits in the limiter's store.
 */
function failuresKey(email: string): string {
  return `login-failures:${sha256Hex(email)}`;
}

/** What counting sign-in failures needs: the limiter's store, the time and the configured limit. */
type FailureCounter = Pick<AppContext, 'rateLimits' | 'clock' | 'config'>;

function failuresRule(ctx: FailureCounter): RateRule {
  return { kind: 'window', limit: ctx.config.rateLimits.loginFailures, windowMs: ctx.config.rateLimits.loginWindowMs };
}

/**
 * Refuses a sign-in to an account with too many recent failures, before its password is
 * looked at: within the lockout even the right password is refused, or guessing would go on.
 */
export async function requireLoginAllowed(ctx: FailureCounter, email: string): Promise<void> {
  const standing = await ctx.rateLimits.peek(failuresKey(email), failuresRule(ctx), ctx.clock.nowMs());
  if (!standing.allowed) {
    throw new RateLimited('Too many failed sign-ins for this account; try again later', Math.ceil(standing.retryAfterMs / 1000));
  }
}

/** Counts one failed sign-in; successes are not counted. */
export async function countLoginFailure(ctx: FailureCounter, email: string): Promise<void> {
  await ctx.rateLimits.consume(failuresKey(email), failuresRule(ctx), ctx.clock.nowMs());
}
