import type { Kysely, Selectable } from 'kysely';
import type { Tables } from '../db/tables.js';
import type { AgentConnectRequestsTable, AgentConnectStatus } from '../db/tables-identity.js';

export type AgentConnectRow = Selectable<AgentConnectRequestsTable>;

export async function insertConnectRequest(db: Kysely<Tables>, row: AgentConnectRow): Promise<void> {
  await db.insertInto('agent_connect_requests').values(row).execute();
}

/** A request with the label and live-ness of the key that made it. */
export function connectRequestById(
  db: Kysely<Tables>,
  id: string,
): Promise<(AgentConnectRow & { key_label: string; key_scopes: string | null }) | undefined> {
  return db
    .selectFrom('agent_connect_requests as r')
    .innerJoin('api_keys as k', 'k.id', 'r.key_id')
    .selectAll('r')
    .select(['k.label as key_label', 'k.scopes as key_scopes'])
    .where('r.id', '=', id)
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst();
}

/**
 * Moves a pending, unexpired request to its decision; false when another decision came
 * first, so two approvals of one request cannot both apply.
 */
export async function decideConnectRequest(
  db: Kysely<Tables>,
  id: string,
  status: Exclude<AgentConnectStatus, 'pending'>,
  nowIso: string,
): Promise<boolean> {
  const result = await db
    .updateTable('agent_connect_requests')
    .set({ status, decided_at: nowIso })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('expires_at', '>', nowIso)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function setKeyScopes(db: Kysely<Tables>, keyId: string, scopes: string): Promise<void> {
  await db.updateTable('api_keys').set({ scopes }).where('id', '=', keyId).where('revoked_at', 'is', null).execute();
}
