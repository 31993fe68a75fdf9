import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import { expect } from 'vitest';
import type { Tables } from '../../src/db/tables.js';

/**
 * What must hold of a store after any fault, checked on the rows themselves rather than
 * through the API, so that nothing the API leaves out can hide a broken row.
 */

/** Every user's cached balance is the sum of their ledger. */
export async function expectLedgerBalanced(db: Kysely<Tables>): Promise<void> {
  const users = await db
    .selectFrom('users')
    .leftJoin('transactions', 'transactions.user_id', 'users.id')
    .select(['users.id', 'users.balance', sql<number>`coalesce(sum(transactions.amount), 0)`.as('ledger')])
    .groupBy(['users.id', 'users.balance'])
    .execute();
  expect(users.length).toBeGreaterThan(0);
  for (const user of users) expect(Number(user.balance), `balance of ${user.id}`).toBe(Number(user.ledger));
}

/** A payment grants once: one positive purchase row per checkout session, and one per paid session. */
export async function expectEachPaymentGrantedOnce(db: Kysely<Tables>): Promise<void> {
  const grants = await db
    .selectFrom('transactions')
    .select(['payment_session_id', sql<number>`count(*)`.as('rows')])
    .where('payment_session_id', 'is not', null)
    .where('amount', '>', 0)
    .groupBy('payment_session_id')
    .execute();
  for (const grant of grants) expect(Number(grant.rows), `grants of ${grant.payment_session_id}`).toBe(1);
  const paid = await db.selectFrom('checkout_sessions').select('id').where('status', '=', 'paid').execute();
  const granted = new Set(grants.map((grant) => grant.payment_session_id));
  for (const session of paid) expect(granted.has(session.id), `paid session ${session.id} granted`).toBe(true);
}

/**
 * Every execution's events are numbered 1..last_sequence with no gap, none is left
 * working, and each that ended closes with its session.status_idle.
 */
export async function expectEventsWhole(db: Kysely<Tables>): Promise<void> {
  const executions = await db
    .selectFrom('executions')
    .leftJoin('execution_events', 'execution_events.execution_id', 'executions.execution_id')
    .select([
      'executions.execution_id',
      'executions.status',
      'executions.last_sequence',
      sql<number>`count(execution_events.sequence)`.as('events'),
      sql<number | null>`min(execution_events.sequence)`.as('first'),
      sql<number | null>`max(execution_events.sequence)`.as('last'),
    ])
    .groupBy(['executions.execution_id', 'executions.status', 'executions.last_sequence'])
    .execute();
  for (const execution of executions) {
    const id = execution.execution_id;
    expect(execution.status, `status of ${id}`).not.toBe('working');
    expect(Number(execution.events), `events of ${id}`).toBe(Number(execution.last_sequence));
    if (Number(execution.events) === 0) continue;
    expect(Number(execution.first), `first sequence of ${id}`).toBe(1);
    expect(Number(execution.last), `last sequence of ${id}`).toBe(Number(execution.last_sequence));
    if (execution.status === 'completed' || execution.status === 'failed') {
      const closing = await db
        .selectFrom('execution_events')
        .select('type')
        .where('execution_id', '=', id)
        .where('sequence', '=', Number(execution.last_sequence))
        .executeTakeFirstOrThrow();
      expect(closing.type, `closing event of ${id}`).toBe('session.status_idle');
    }
  }
  await expectRunsEndedOnce(db);
}

/**
 * A run ends once: after a session.status_idle only a new run's user.message may follow
 * (a run ended twice, or going on after its end, shows as anything else there).
 */
export async function expectRunsEndedOnce(db: Kysely<Tables>): Promise<void> {
  const after = await db
    .selectFrom('execution_events as closing')
    .innerJoin('execution_events as next', (join) =>
      join.onRef('next.execution_id', '=', 'closing.execution_id').on('next.sequence', '=', sql<number>`closing.sequence + 1`),
    )
    .select(['closing.execution_id', 'closing.sequence', 'next.type'])
    .where('closing.type', '=', 'session.status_idle')
    .where('next.type', '<>', 'user.message')
    .execute();
  expect(after, 'events after a run ended').toEqual([]);
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * No artifact is left pending, every file an artifact names has its blob, every blob is
 * whole (its name is the SHA-256 of its bytes) and no temporary file is left in `blobDir`.
 */
export async function expectArtifactsWhole(db: Kysely<Tables>, blobDir: string): Promise<void> {
  const pending = await db.selectFrom('artifacts').select('id').where('status', '=', 'pending').execute();
  expect(pending, 'pending artifacts').toEqual([]);
  expect(await filesUnder(path.join(blobDir, 'tmp')), 'temporary blob files').toEqual([]);
  const blobs = new Map<string, string>();
  for (const file of await filesUnder(blobDir)) {
    expect(await sha256Of(file), file).toBe(path.basename(file));
    blobs.set(path.basename(file), file);
  }
  const files = await db
    .selectFrom('artifact_files')
    .innerJoin('artifacts', 'artifacts.id', 'artifact_files.artifact_id')
    .select(['artifact_files.artifact_id', 'artifact_files.path', 'artifact_files.sha256', 'artifacts.status'])
    .execute();
  for (const file of files) {
    expect(file.status, `artifact ${file.artifact_id} with files`).toBe('completed');
    expect(blobs.has(file.sha256), `blob of ${file.artifact_id}/${file.path}`).toBe(true);
  }
}
