import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import type { ActivationStatus } from '../db/tables-identity.js';
import { AppError, Conflict, Expired, InternalError, NotFound, RateLimited } from '../errors.js';
import { mintApiKey } from '../identity/api-keys.js';
import type { Caller } from '../ports/callers.js';
import type { RateRule } from '../ports/rate-limits.js';
import { invalidate } from '../realtime/control-messages.js';
import { encrypt, randomBase64Url, sha256Hex } from '../secrets.js';
import {
  type ActivationRow,
  type ActivationState,
  compareAndSet,
  findByUserCode,
  findStateById,
  insertActivation,
} from './activation.store.js';
import { ACTIVATION_TTL_SECONDS, currentStatus, type Expirer, expire } from './lifecycle.js';
import { generateUserCode, normalizeUserCode } from './user-code.js';

export interface ClientInfo {
  label: string;
  userAgent: string;
  ip: string;
}

export interface NewActivation {
  deviceCode: string;
  userCode: string;
  expiresIn: number;
}

export interface ActivationDetails {
  user_code: string;
  client_label: string;
  client_ua: string;
  client_ip: string;
  status: ActivationStatus;
  expires_at: string;
}

/** RFC 8628 section 5.1: a person may miss at most this many codes per window. */
const GUESS_RULE: RateRule = { kind: 'window', limit: 10, windowMs: 10 * 60_000 };

/** What reading a typed code needs: the codes, the time, the guess limiter, and expiring codes found overdue. */
type CodeReader = Expirer & Pick<AppContext, 'rateLimits'>;

/** What deciding on a code needs beyond reading it: the key that seals the minted API key. */
type Decider = CodeReader & Pick<AppContext, 'keys' | 'control'>;

export async function createActivation(ctx: Pick<AppContext, 'db' | 'clock'>, client: ClientInfo): Promise<NewActivation> {
  const now = ctx.clock.now();
  const deviceCode = randomBase64Url(32);
  for (let attempt = 0; ; attempt++) {
    const userCode = generateUserCode();
    try {
      await insertActivation(ctx.db, {
        id: randomUUID(),
        device_code_hash: sha256Hex(deviceCode),
        user_code: userCode,
        status: 'pending',
        client_label: client.label,
        client_ua: client.userAgent,
        client_ip: client.ip,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + ACTIVATION_TTL_SECONDS * 1000).toISOString(),
        decided_by: null,
        decided_at: null,
        workspace_id: null,
        api_key_id: null,
        sealed_key: null,
        claimed_at: null,
      });
      return { deviceCode, userCode, expiresIn: ACTIVATION_TTL_SECONDS };
    } catch (error) {
      // A user code collision (about one in 10^12): draw another.
      if (!isUniqueViolation(error) || attempt >= 4) throw error;
    }
  }
}

function guessKey(caller: Caller): string {
  return `activation-guess:${caller.userId}`;
}

/**
 * Finds the code a signed-in person typed. Unknown codes count against them, and past
 * the limit every lookup is refused, known code or not, so guessing does not pay.
 */
async function findTypedCode(
  ctx: Pick<AppContext, 'db' | 'clock' | 'rateLimits'>,
  caller: Caller,
  typed: string,
): Promise<ActivationRow> {
  const nowMs = ctx.clock.nowMs();
  const allowance = await ctx.rateLimits.peek(guessKey(caller), GUESS_RULE, nowMs);
  if (!allowance.allowed) {
    throw new RateLimited('Too many unknown activation codes; try again later', Math.ceil(allowance.retryAfterMs / 1000));
  }
  const userCode = normalizeUserCode(typed);
  const row = userCode ? await findByUserCode(ctx.db, userCode) : undefined;
  if (!row) {
    await ctx.rateLimits.consume(guessKey(caller), GUESS_RULE, nowMs);
    throw new NotFound('No activation with this code');
  }
  return row;
}

function details(row: ActivationRow, status: ActivationStatus): ActivationDetails {
  return {
    user_code: row.user_code,
    client_label: row.client_label,
    client_ua: row.client_ua,
    client_ip: row.client_ip,
    status,
    expires_at: row.expires_at,
  };
}

export async function lookupActivation(ctx: CodeReader, caller: Caller, typed: string): Promise<ActivationDetails> {
  const row = await findTypedCode(ctx, caller, typed);
  const status = currentStatus(row, ctx.clock.now());
  if (status === 'expired' && row.status !== 'expired') await expire(ctx, row);
  return details(row, status);
}

/** Refuses a decision on a code that is no longer pending, naming the state it is in. */
async function requirePending(ctx: Expirer, row: ActivationState): Promise<void> {
  const status = currentStatus(row, ctx.clock.now());
  if (status === 'pending') return;
  if (status === 'expired') {
    if (row.status !== 'expired') await expire(ctx, row);
    throw new Expired('This activation code has expired');
  }
  throw new Conflict(`This activation code is already ${status}`);
}

/** Thrown inside a transaction to roll it back when another decision got there first. */
class LostRace extends Error {}

async function afterLostRace(ctx: Expirer, id: string): Promise<never> {
  const winner = await findStateById(ctx.db, id);
  if (!winner) throw new NotFound('No activation with this code');
  await requirePending(ctx, winner);
  throw new Conflict('This activation code changed while it was being decided');
}

/**
 * Where an approved device's key goes: the workspace the approver named (an
 * `x-workspace-id` header, or the page's choice), else their personal one, whichever
 * workspace their session happens to be switched to.
 */
function keyWorkspaceOf(caller: Caller, workspaceNamed: boolean): string {
  return workspaceNamed ? caller.workspaceId : caller.personalWorkspaceId;
}

/** Approves a pending code: mints a key in the workspace keyWorkspaceOf picks and seals it for its one claim. */
export async function confirmActivation(
  ctx: Decider,
  caller: Caller,
  typed: string,
  approval: { workspaceNamed: boolean },
): Promise<void> {
  const workspaceId = keyWorkspaceOf(caller, approval.workspaceNamed);
  const row = await findTypedCode(ctx, caller, typed);
  await requirePending(ctx, row);
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const minted = await mintApiKey(ctx, trx, {
        userId: caller.userId,
        workspaceId,
        label: `${row.client_label} (${row.user_code})`,
      }).catch((error: unknown) => {
        if (error instanceof AppError) throw error;
        throw new InternalError('The API key could not be minted', { cause: error });
      });
      const now = ctx.clock.now().toISOString();
      const won = await compareAndSet(trx, row, {
        status: 'approved',
        decided_by: caller.userId,
        decided_at: now,
        workspace_id: workspaceId,
        api_key_id: minted.row.id,
        sealed_key: encrypt(ctx.keys.sealing, minted.plaintext),
      });
      if (!won) throw new LostRace();
    });
  } catch (error) {
    if (error instanceof LostRace) await afterLostRace(ctx, row.id);
    throw error;
  }
  // The person's own keys list (in the workspace their app follows) has a new entry.
  invalidate(ctx, caller.workspaceId, ['keys']);
}

export async function denyActivation(ctx: CodeReader, caller: Caller, typed: string): Promise<void> {
  const row = await findTypedCode(ctx, caller, typed);
  await requirePending(ctx, row);
  const won = await compareAndSet(ctx.db, row, {
    status: 'denied',
    decided_by: caller.userId,
    decided_at: ctx.clock.now().toISOString(),
  });
  if (!won) await afterLostRace(ctx, row.id);
}
