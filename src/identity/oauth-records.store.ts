import type { Kysely, Selectable } from 'kysely';
import type { Tables } from '../db/tables.js';
import type { OAuthGrantWorkspacesTable, OAuthRecordsTable } from '../db/tables-identity.js';

export type OAuthRecordRow = Selectable<OAuthRecordsTable>;
export type GrantWorkspaceRow = Selectable<OAuthGrantWorkspacesTable>;

/** Writes a model instance, replacing one stored under the same id (oidc-provider re-saves sessions and grants). */
export async function upsertRecord(db: Kysely<Tables>, row: OAuthRecordRow): Promise<void> {
  await db
    .insertInto('oauth_records')
    .values(row)
    .onConflict((conflict) =>
      conflict.columns(['model', 'id']).doUpdateSet({
        payload: row.payload,
        grant_id: row.grant_id,
        uid: row.uid,
        expires_at: row.expires_at,
        consumed_at: row.consumed_at,
      }),
    )
    .execute();
}

/** A record that has not expired as of `now` (an expired one is as good as gone). */
export function findLiveRecord(db: Kysely<Tables>, model: string, id: string, now: string): Promise<OAuthRecordRow | undefined> {
  return db
    .selectFrom('oauth_records')
    .selectAll()
    .where('model', '=', model)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
}

export function findLiveRecordByUid(
  db: Kysely<Tables>,
  model: string,
  uid: string,
  now: string,
): Promise<OAuthRecordRow | undefined> {
  return db
    .selectFrom('oauth_records')
    .selectAll()
    .where('model', '=', model)
    .where('uid', '=', uid)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
}

export async function consumeRecord(db: Kysely<Tables>, model: string, id: string, now: string): Promise<void> {
  await db.updateTable('oauth_records').set({ consumed_at: now }).where('model', '=', model).where('id', '=', id).execute();
}

export async function deleteRecord(db: Kysely<Tables>, model: string, id: string): Promise<void> {
  await db.deleteFrom('oauth_records').where('model', '=', model).where('id', '=', id).execute();
}

/** Everything issued under a grant, whatever its model; the grant itself stays. */
export async function deleteGrantRecords(db: Kysely<Tables>, grantId: string): Promise<void> {
  await db.deleteFrom('oauth_records').where('grant_id', '=', grantId).execute();
}

export async function deleteGrantWorkspace(db: Kysely<Tables>, grantId: string): Promise<void> {
  await db.deleteFrom('oauth_grant_workspaces').where('grant_id', '=', grantId).execute();
}

/** Records a grant's workspace once: a grant already bound keeps its binding (the caller reads it back). */
export async function insertGrantWorkspace(db: Kysely<Tables>, row: GrantWorkspaceRow): Promise<void> {
  await db
    .insertInto('oauth_grant_workspaces')
    .values(row)
    .onConflict((conflict) => conflict.column('grant_id').doNothing())
    .execute();
}

export function findGrantWorkspace(db: Kysely<Tables>, grantId: string): Promise<GrantWorkspaceRow | undefined> {
  return db.selectFrom('oauth_grant_workspaces').selectAll().where('grant_id', '=', grantId).executeTakeFirst();
}

/** Removes records past their time, and the workspace bindings of grants no longer stored. */
export async function deleteExpiredRecords(db: Kysely<Tables>, now: string): Promise<number> {
  const expired = await db.deleteFrom('oauth_records').where('expires_at', '<=', now).executeTakeFirst();
  await db
    .deleteFrom('oauth_grant_workspaces')
    .where('grant_id', 'not in', db.selectFrom('oauth_records').select('id').where('model', '=', 'Grant'))
    .execute();
  return Number(expired.numDeletedRows);
}

/** Whether a grant still has an access or refresh token that is neither expired nor revoked. */
export async function hasLiveGrantToken(db: Kysely<Tables>, grantId: string, now: string): Promise<boolean> {
  const row = await db
    .selectFrom('oauth_records')
    .select('id')
    .where('grant_id', '=', grantId)
    .where('model', 'in', ['AccessToken', 'RefreshToken'])
    .where('consumed_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
  return row !== undefined;
}

/** A person's grants that are still stored, with the workspace each acts in and its client's record. */
export function grantsOfUser(db: Kysely<Tables>, userId: string) {
  return db
    .selectFrom('oauth_grant_workspaces as b')
    .innerJoin('oauth_records as g', (join) => join.onRef('g.id', '=', 'b.grant_id').on('g.model', '=', 'Grant'))
    .select(['b.grant_id', 'b.workspace_id', 'b.created_at', 'g.payload as grant_payload'])
    .where('b.user_id', '=', userId)
    .orderBy('b.created_at', 'desc')
    .orderBy('b.grant_id')
    .execute();
}

export async function clientRecord(db: Kysely<Tables>, clientId: string): Promise<OAuthRecordRow | undefined> {
  return db.selectFrom('oauth_records').selectAll().where('model', '=', 'Client').where('id', '=', clientId).executeTakeFirst();
}

/** Ends a grant: its tokens, the grant itself and its workspace binding, in one transaction. */
export async function deleteGrant(db: Kysely<Tables>, grantId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('oauth_records').where('grant_id', '=', grantId).execute();
    await trx.deleteFrom('oauth_records').where('model', '=', 'Grant').where('id', '=', grantId).execute();
    await trx.deleteFrom('oauth_grant_workspaces').where('grant_id', '=', grantId).execute();
  });
}
