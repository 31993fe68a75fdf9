import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RateDecision, RateLimitStore, RateRule, WindowRule } from '../ports/rate-limits.js';

/**
 * The same decisions as MemoryRateLimitStore, counted in Redis so that every node shares them.
 * Each hit is one Lua script, so a read-decide-write can never interleave with another node's,
 * and it runs on the caller's `nowMs` (never Redis's clock), as the memory store does.
 *
 * The script repeats MemoryRateLimitStore's arithmetic step by step: both sides compute in IEEE
 * doubles, and numbers cross the wire as %.17g text (exact for a double), so the answers are
 * equal to the bit, fractions and huge values included; integer replies would truncate them.
 *
 * A key holds `w <count> <resetAt>` or `b <tat>`; a key of the other kind counts as absent, as in
 * the memory store. It is written with its expiry: the time until it is spent (the window ends, the
 * bucket is full again) plus a grace, because that time is on the writer's clock and a node whose
 * clock is a little behind must still find the key while its own `nowMs` says it is live.
 */
const SCRIPT = `
local GRACE_MS = 5000
-- Redis refuses an expiry past the year 292 million; a rule that long is kept for ~31,700 years.
local MAX_TTL_MS = 1e15

local function fmt(x) return string.format('%.17g', x) end
-- Math.max(0, x) as JavaScript has it: NaN stays NaN, where Lua's math.max would answer 0.
local function max0(x) if x ~= x or x > 0 then return x end return 0 end

local function save(value, spentAt, now)
  local ttl = math.ceil(spentAt - now) + GRACE_MS
  -- A key already spent (a negative period, NaN) is never read as live: the shortest expiry does.
  if not (ttl >= 1) then ttl = 1 end
  redis.call('SET', KEYS[1], value, 'PX', fmt(math.min(MAX_TTL_MS, ttl)))
end

local mode = ARGV[1]
local count = mode == 'count'
local kind = ARGV[2]
local limit = tonumber(ARGV[3])
local period = tonumber(ARGV[4])
local now = tonumber(ARGV[5])
local n = tonumber(ARGV[6])
local stored = redis.call('GET', KEYS[1]) or ''

if kind == 'window' then
  local hits, resetAt = string.match(stored, '^w (%S+) (%S+)$')
  hits, resetAt = tonumber(hits), tonumber(resetAt)
  if not (resetAt and resetAt > now) then
    hits, resetAt = 0, now + period
  end
  if mode == 'release' then
    -- Only to the window that counted them, and never below nothing.
    if hits > 0 and resetAt == tonumber(ARGV[7]) then
      hits = max0(hits - n)
      save('w ' .. fmt(hits) .. ' ' .. fmt(resetAt), resetAt, now)
    end
    return { 1, fmt(max0(limit - hits)), fmt(resetAt - now), fmt(0) }
  end
  local allowed = hits + (n - 1) < limit
  if allowed and count then
    hits = hits + n
    save('w ' .. fmt(hits) .. ' ' .. fmt(resetAt), resetAt, now)
  end
  local resetMs = resetAt - now
  local retryAfterMs = 0
  if not allowed then retryAfterMs = resetMs end
  return { allowed and 1 or 0, fmt(max0(limit - hits)), fmt(resetMs), fmt(retryAfterMs) }
end

local span = limit * period
local tat = tonumber(string.match(stored, '^b (%S+)$')) or now
if not (tat > now) then tat = now end
local nextTat = tat + period * n
local allowAt = nextTat - span
local allowed = now >= allowAt
if allowed and count then
  save('b ' .. fmt(nextTat), nextTat, now)
  tat = nextTat
end
local retryAfterMs = 0
if not allowed then retryAfterMs = allowAt - now end
return {
  allowed and 1 or 0,
  fmt(max0(math.floor((span - (tat - now)) / period))),
  fmt(max0(tat - now)),
  fmt(retryAfterMs),
}
`;

const SCRIPT_SHA = createHash('sha1').update(SCRIPT).digest('hex');

export interface RedisRateLimitStoreOptions {
  /** Put before every key, so that tests (or two deployments on one Redis) keep apart. */
  prefix?: string;
}

export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: Redis;
  readonly #prefix: string;

  /** The caller owns `redis`: it is neither connected nor closed here. */
  constructor(redis: Redis, options: RedisRateLimitStoreOptions = {}) {
    this.#redis = redis;
    this.#prefix = options.prefix ?? 'skillet:rl:';
  }

  async consume(key: string, rule: RateRule, nowMs: number, hits = 1): Promise<RateDecision> {
    return this.#hit(key, rule, nowMs, hits, 'count');
  }

  async peek(key: string, rule: RateRule, nowMs: number): Promise<RateDecision> {
    return this.#hit(key, rule, nowMs, 1, 'peek');
  }

  async release(key: string, rule: WindowRule, nowMs: number, hits: number, windowEndsAtMs: number): Promise<number> {
    return (await this.#hit(key, rule, nowMs, hits, 'release', windowEndsAtMs)).remaining;
  }

  async #hit(
    key: string,
    rule: RateRule,
    nowMs: number,
    hits: number,
    mode: 'count' | 'peek' | 'release',
    windowEndsAtMs = 0,
  ): Promise<RateDecision> {
    const [limit, period] = rule.kind === 'window' ? [rule.limit, rule.windowMs] : [rule.capacity, rule.intervalMs];
    // String(n) is JavaScript's shortest exact form, which Lua's tonumber reads back to the same double.
    const args = [mode, rule.kind, String(limit), String(period), String(nowMs), String(hits), String(windowEndsAtMs)];
    const reply = await this.#eval(this.#prefix + key, args);
    if (!Array.isArray(reply) || reply.length !== 4 || typeof reply[0] !== 'number') {
      throw new Error(`Unexpected reply from the rate-limit script: ${JSON.stringify(reply)}`);
    }
    const [allowed, remaining, resetMs, retryAfterMs] = reply;
    return {
      allowed: allowed === 1,
      limit,
      remaining: readNumber(remaining),
      resetMs: readNumber(resetMs),
      retryAfterMs: readNumber(retryAfterMs),
    };
  }

  /** EVALSHA, and EVAL only when Redis has not seen the script yet (a restart, a flush, a new server). */
  async #eval(key: string, args: string[]): Promise<unknown> {
    try {
      return await this.#redis.evalsha(SCRIPT_SHA, 1, key, ...args);
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
      return this.#redis.eval(SCRIPT, 1, key, ...args);
    }
  }
}

/** Reads Lua's %.17g, whose infinities ("inf") and NaN ("nan", "-nan") JavaScript does not parse. */
function readNumber(text: unknown): number {
  if (typeof text !== 'string') throw new Error(`Unexpected number from the rate-limit script: ${String(text)}`);
  if (text === 'inf') return Number.POSITIVE_INFINITY;
  if (text === '-inf') return Number.NEGATIVE_INFINITY;
  return Number(text);
}
