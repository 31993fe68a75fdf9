import type { Kysely, Selectable } from 'kysely';
import { preparedLookup } from '../db/prepared-lookup.js';
import type { Tables } from '../db/tables.js';
import type { ActivationStatus, ActivationsTable } from '../db/tables-identity.js';

export type ActivationRow = Selectable<ActivationsTable>;

/** What the state machine reads of a code: enough to decide, expire and claim it. */
export type ActivationState = Pick<
  ActivationRow,
  'id' | 'version' | 'status' | 'expires_at' | 'api_key_id' | 'sealed_key' | 'workspace_id' | 'decided_by'
>;

const STATE_COLUMNS = [
  'id',
  'version',
  'status',
  'expires_at',
  'api_key_id',
  'sealed_key',
  'workspace_id',
  'decided_by',
] as const;

export async function insertActivation(db: Kysely<Tables>, row: Omit<ActivationRow, 'version'>): Promise<void> {
  await db.insertInto('activations').values(row).execute();
}

export function findByUserCode(db: Kysely<Tables>, userCode: string): Promise<ActivationRow | undefined> {
  return db.selectFrom('activations').selectAll().where('user_code', '=', userCode).executeTakeFirst();
}

/** On the polling path: prepared, since every device polls about once a second. */
export const findByDeviceCodeHash = preparedLookup((db, hash: string) =>
  db.selectFrom('activations').select(STATE_COLUMNS).where('device_code_hash', '=', hash),
);

export function findStateById(db: Kysely<Tables>, id: string): Promise<ActivationState | undefined> {
  return db.selectFrom('activations').select(STATE_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export type ActivationChange = Partial<
  Pick<ActivationRow, 'status' | 'decided_by' | 'decided_at' | 'workspace_id' | 'api_key_id' | 'sealed_key' | 'claimed_at'>
>;

/**
 * The compare-and-set every transition goes through: it applies only if the row is still
 * at the version (and so the state) the caller read. True when this caller won.
 */
export async function compareAndSet(
  db: Kysely<Tables>,
  seen: Pick<ActivationRow, 'id' | 'version'>,
  change: ActivationChange & { status: ActivationStatus },
): Promise<boolean> {
  const result = await db
    .updateTable('activations')
    .set((eb) => ({ ...change, version: eb('version', '+', 1) }))
    .where('id', '=', seen.id)
    .where('version', '=', seen.version)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Codes whose clock ran out while still pending or awaiting their claim. */
export function findOverdue(db: Kysely<Tables>, nowIso: string, limit: number): Promise<ActivationState[]> {
  return db
    .selectFrom('activations')
    .select(STATE_COLUMNS)
    .where('status', 'in', ['pending', 'approved'])
    .where('expires_at', '<=', nowIso)
    .limit(limit)
    .execute();
}

export function workspaceName(db: Kysely<Tables>, workspaceId: string): Promise<{ name: string | null } | undefined> {
  return db.selectFrom('workspaces').select('name').where('id', '=', workspaceId).executeTakeFirst();
}
