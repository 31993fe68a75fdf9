import type { Kysely, Selectable } from 'kysely';
import type { Tables } from '../db/tables.js';
import type { UsersTable } from '../db/tables-identity.js';
import { grant } from '../ledger/ledger.store.js';
import type { BillingStanding } from '../ports/callers.js';
import { standingOfRow } from './subscription-mode.js';

export type UserRow = Selectable<UsersTable>;

export interface NewUser {
  id: string;
  email: string;
  passwordHash: string;
  isAdmin: boolean;
  personalWorkspaceId: string;
  createdAt: string;
  /** Ds granted at sign-up (SIGNUP_CREDITS), written to the ledger in the same transaction. */
  signupCredits: number;
}

/** A user always comes with a personal workspace they own; both are written together. */
export async function insertUserWithPersonalWorkspace(db: Kysely<Tables>, user: NewUser): Promise<UserRow> {
  return db.transaction().execute(async (trx) => {
    await trx
      .insertInto('workspaces')
      .values({ id: user.personalWorkspaceId, name: null, is_personal: 1, created_at: user.createdAt })
      .execute();
    const row = await trx
      .insertInto('users')
      .values({
        id: user.id,
        email: user.email,
        password_hash: user.passwordHash,
        is_admin: user.isAdmin ? 1 : 0,
        personal_workspace_id: user.personalWorkspaceId,
        created_at: user.createdAt,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('workspace_members')
      .values({ workspace_id: user.personalWorkspaceId, user_id: user.id, role: 'owner', created_at: user.createdAt })
      .execute();
    if (user.signupCredits > 0) {
      await grant(trx, {
        userId: user.id,
        amount: user.signupCredits,
        description: `Sign-up credits: ${user.signupCredits} Ds`,
        paymentSessionId: null,
        nowIso: user.createdAt,
      });
    }
    return row;
  });
}

export function findUserByEmail(db: Kysely<Tables>, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export function findUserById(db: Kysely<Tables>, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A user's billing standing as stored now (callers carry a copy as old as their credential cache). */
export async function standingOf(db: Kysely<Tables>, userId: string): Promise<BillingStanding> {
  const row = await db
    .selectFrom('users')
    .select(['subscription_expires_at', 'site_license_until', 'byok_provider'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return standingOfRow(row);
}
