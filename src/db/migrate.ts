import { type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import { columnTypes } from './column-types.js';
import type { Database } from './database.js';
import { identityMigration } from './migrations/0001-identity.js';
import { executionsMigration } from './migrations/0002-executions.js';
import { eventFramesMigration } from './migrations/0003-event-frames.js';
import { artifactsMigration } from './migrations/0004-artifacts.js';
import { billingMigration } from './migrations/0005-billing.js';
import { modelChargesMigration } from './migrations/0006-model-charges.js';
import { oauthMigration } from './migrations/0007-oauth.js';
import { agentConnectMigration } from './migrations/0008-agent-connect.js';
import { runOwnerMigration } from './migrations/0009-run-owner.js';
import { clusterMigration } from './migrations/0010-cluster.js';
import { agentThreadsMigration } from './migrations/0011-agent-threads.js';
import { outboundWebhooksMigration } from './migrations/0012-outbound-webhooks.js';
import { creditHoldsMigration } from './migrations/0013-credit-holds.js';
import { approvalAskersMigration } from './migrations/0014-approval-askers.js';
import { inputFilesMigration } from './migrations/0015-input-files.js';
import { passwordResetsMigration } from './migrations/0016-password-resets.js';
import { subscriptionCancellationsMigration } from './migrations/0017-subscription-cancellations.js';
import { uploadedSkillsMigration } from './migrations/0018-uploaded-skills.js';
import { runJournalMigration } from './migrations/0019-run-journal.js';
import { runOwnerAttemptMigration } from './migrations/0020-run-owner-attempt.js';
import { spentNetOfRefundsMigration } from './migrations/0021-spent-net-of-refunds.js';
import { workspaceInvitationsMigration } from './migrations/0022-workspace-invitations.js';

/** Migrations are listed here in order, so they work the same from src (tests) and dist. */
function migrationsFor(database: Database): Record<string, Migration> {
  const types = columnTypes(database.dialect);
  return {
    '0001-identity': identityMigration(types),
    '0002-executions': executionsMigration(types),
    '0003-event-frames': eventFramesMigration(types, database.dialect),
    '0004-artifacts': artifactsMigration(types),
    '0005-billing': billingMigration(types),
    '0006-model-charges': modelChargesMigration,
    '0007-oauth': oauthMigration(types),
    '0008-agent-connect': agentConnectMigration(types),
    '0009-run-owner': runOwnerMigration,
    '0010-cluster': clusterMigration(types),
    '0011-agent-threads': agentThreadsMigration(types),
    '0012-outbound-webhooks': outboundWebhooksMigration(types),
    '0013-credit-holds': creditHoldsMigration(types),
    '0014-approval-askers': approvalAskersMigration,
    '0015-input-files': inputFilesMigration(types),
    '0016-password-resets': passwordResetsMigration(types),
    '0017-subscription-cancellations': subscriptionCancellationsMigration(types),
    '0018-uploaded-skills': uploadedSkillsMigration,
    '0019-run-journal': runJournalMigration(types),
    '0020-run-owner-attempt': runOwnerAttemptMigration,
    '0021-spent-net-of-refunds': spentNetOfRefundsMigration,
    '0022-workspace-invitations': workspaceInvitationsMigration(types),
  };
}

export async function migrateToLatest(database: Database): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrationsFor(database) };
  // Kysely looks for its own bookkeeping tables in any schema unless told which is ours;
  // another application's tables elsewhere on the same server must not count as ours.
  const schema = await bookkeepingSchema(database);
  const migrator = new Migrator({ db: database.db, provider, ...(schema ? { migrationTableSchema: schema } : {}) });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
    if (attempt < 5 && droppedUnderIntrospection(error)) continue;
    throw error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * Kysely looks for its bookkeeping tables by listing every table of every schema on the
 * server, with their columns; a schema someone drops meanwhile (another application's,
 * another test file's) fails that listing with a table, schema or column that "does not
 * exist". Nothing was migrated then, and looking again works.
 */
const VANISHED_UNDER_INTROSPECTION = new Set(['42P01', '3F000', '42703']);

function droppedUnderIntrospection(error: unknown): boolean {
  return VANISHED_UNDER_INTROSPECTION.has(String((error as { code?: unknown } | undefined)?.code));
}

/** On PostgreSQL, the schema our tables go in: the configured one, or the connection's current one. */
async function bookkeepingSchema(database: Database): Promise<string | undefined> {
  if (database.dialect !== 'postgres') return undefined;
  if (database.schema) return database.schema;
  const { rows } = await sql<{ name: string }>`select current_schema() as name`.execute(database.db);
  return rows[0]?.name;
}
