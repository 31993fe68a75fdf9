import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Tables } from '../db/tables.js';
import type { AgentThreadsTable, ThreadApprovalsTable } from '../db/tables-threads.js';
import type { StoredThreadRecord, ThreadRecord } from '../ports/thread-records.js';
import { encodeThreadFrame } from './thread-frames.js';

export type ThreadRow = Selectable<AgentThreadsTable>;
export type ThreadApprovalRow = Selectable<ThreadApprovalsTable>;

/** A stored record with the frame it was stored as: announced as is, never rendered again. */
export interface StoredThreadFrame extends StoredThreadRecord {
  frame: string;
}

export interface ThreadName {
  workspaceId: string;
  agentId: string;
  threadId: string;
}

export function findThread(db: Kysely<Tables>, name: ThreadName): Promise<ThreadRow | undefined> {
  return db
    .selectFrom('agent_threads')
    .selectAll()
    .where('workspace_id', '=', name.workspaceId)
    .where('agent_id', '=', name.agentId)
    .where('thread_id', '=', name.threadId)
    .executeTakeFirst();
}

export function threadById(db: Kysely<Tables>, id: string): Promise<ThreadRow | undefined> {
  return db.selectFrom('agent_threads').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The thread of this name, made if it is new. Two first messages racing both insert with
 * ON CONFLICT DO NOTHING on the unique name, and both then read the one row that won.
 */
export async function upsertThread(db: Kysely<Tables>, name: ThreadName, nowIso: string): Promise<ThreadRow> {
  const existing = await findThread(db, name);
  if (existing) return existing;
  await db
    .insertInto('agent_threads')
    .values({
      id: randomUUID(),
      workspace_id: name.workspaceId,
      agent_id: name.agentId,
      thread_id: name.threadId,
      last_sequence: 0,
      created_at: nowIso,
    })
    .onConflict((conflict) => conflict.columns(['workspace_id', 'agent_id', 'thread_id']).doNothing())
    .execute();
  const row = await findThread(db, name);
  if (!row) throw new Error('A thread just made is not there');
  return row;
}

/**
 * Stores records under the thread's next sequence numbers, within `trx`. The counter lives
 * on the thread row and is bumped in the same transaction (as executions' events are), so
 * sequences are gap-free and never repeat, on either engine. `throughOf` gives what an
 * agent.turn_end frame says its turn had seen (thread-frames.ts).
 */
export async function appendThreadRecords(
  trx: Kysely<Tables>,
  threadRowId: string,
  records: ThreadRecord[],
  nowIso: string,
  through?: number,
): Promise<StoredThreadFrame[]> {
  if (records.length === 0) return [];
  const counter = await trx
    .updateTable('agent_threads')
    .set((eb) => ({ last_sequence: eb('last_sequence', '+', records.length) }))
    .where('id', '=', threadRowId)
    .returning('last_sequence')
    .executeTakeFirstOrThrow();
  const first = counter.last_sequence - records.length + 1;
  const stored = records.map((record, i): StoredThreadFrame => {
    const base = { sequence: first + i, id: randomUUID(), createdAt: nowIso, record };
    return { ...base, frame: encodeThreadFrame(base, record.type === 'agent.turn_end' ? through : undefined) };
  });
  await trx
    .insertInto('thread_records')
    .values(
      stored.map((one) => ({
        thread_row_id: threadRowId,
        sequence: one.sequence,
        id: one.id,
        type: one.record.type,
        frame: one.frame,
        created_at: nowIso,
      })),
    )
    .execute();
  return stored;
}

export async function lastThreadSequence(db: Kysely<Tables>, threadRowId: string): Promise<number> {
  const row = await db.selectFrom('agent_threads').select('last_sequence').where('id', '=', threadRowId).executeTakeFirst();
  return row?.last_sequence ?? 0;
}

/** Stored frames after `after` up to `through`, in order, at most `limit` of them. */
export function threadFramesAfter(
  db: Kysely<Tables>,
  threadRowId: string,
  after: number,
  through: number,
  limit: number,
): Promise<{ sequence: number; type: string; frame: string }[]> {
  return db
    .selectFrom('thread_records')
    .select(['sequence', 'type', 'frame'])
    .where('thread_row_id', '=', threadRowId)
    .where('sequence', '>', after)
    .where('sequence', '<=', through)
    .orderBy('sequence')
    .limit(limit)
    .execute();
}

/** Every frame of a thread, in order: the history its agent is given. */
export async function threadFrames(db: Kysely<Tables>, threadRowId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('thread_records')
    .select('frame')
    .where('thread_row_id', '=', threadRowId)
    .orderBy('sequence')
    .execute();
  return rows.map((row) => row.frame);
}

export async function insertApproval(db: Kysely<Tables>, row: ThreadApprovalRow): Promise<void> {
  await db.insertInto('thread_approvals').values(row).execute();
}

export function approvalOf(db: Kysely<Tables>, threadRowId: string, approvalId: string): Promise<ThreadApprovalRow | undefined> {
  return db
    .selectFrom('thread_approvals')
    .selectAll()
    .where('id', '=', approvalId)
    .where('thread_row_id', '=', threadRowId)
    .executeTakeFirst();
}

/** Answers a pending approval; undefined when it was answered already (the update is the check, so two answers cannot both win). */
export function decidePendingApproval(
  db: Kysely<Tables>,
  approvalId: string,
  decision: { status: 'approved' | 'denied'; decidedAt: string; decidedBy: string },
): Promise<ThreadApprovalRow | undefined> {
  return db
    .updateTable('thread_approvals')
    .set({ status: decision.status, decided_at: decision.decidedAt, decided_by: decision.decidedBy })
    .where('id', '=', approvalId)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

/** Gives up a lease taken with acquireLease (distributed/cluster.store.ts), if still ours. */
export async function releaseLease(db: Kysely<Tables>, name: string, holder: string): Promise<void> {
  await db.deleteFrom('cluster_leases').where('name', '=', name).where('holder', '=', holder).execute();
}

/** How a run ended, as its stored events tell: its result's summary, or the reason it failed. */
export async function runEndFrames(db: Kysely<Tables>, executionId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('execution_events')
    .select('frame')
    .where('execution_id', '=', executionId)
    .where('type', 'in', ['execution.result', 'agent.info'])
    .orderBy('sequence')
    .execute();
  return rows.map((row) => row.frame);
}

export function executionOfRun(db: Kysely<Tables>, executionId: string) {
  return db
    .selectFrom('executions')
    .select(['execution_id', 'skill_slug', 'skill_name', 'status'])
    .where('execution_id', '=', executionId)
    .executeTakeFirst();
}

/** One listed thread: its name, when it began and last changed, and its first message's frame (its title). */
export interface ThreadListRow {
  thread_id: string;
  created_at: string;
  updated_at: string | null;
  first_message: string | null;
}

/**
 * A workspace's threads with an agent that hold at least one record, the most recently
 * active first. Both subqueries walk the thread's records by its primary key.
 */
export async function threadPage(
  db: Kysely<Tables>,
  name: Omit<ThreadName, 'threadId'>,
  limit: number,
  offset: number,
): Promise<{ rows: ThreadListRow[]; total: number }> {
  const listed = db
    .selectFrom('agent_threads')
    .where('workspace_id', '=', name.workspaceId)
    .where('agent_id', '=', name.agentId)
    .where('last_sequence', '>', 0);
  const [rows, count] = await Promise.all([
    listed
      .select((eb) => [
        'agent_threads.thread_id',
        'agent_threads.created_at',
        eb
          .selectFrom('thread_records')
          .select((inner) => inner.fn.max('thread_records.created_at').as('updated'))
          .whereRef('thread_records.thread_row_id', '=', 'agent_threads.id')
          .as('updated_at'),
        eb
          .selectFrom('thread_records')
          .select('thread_records.frame')
          .whereRef('thread_records.thread_row_id', '=', 'agent_threads.id')
          .where('thread_records.type', '=', 'user.message')
          .orderBy('thread_records.sequence')
          .limit(1)
          .as('first_message'),
      ])
      .orderBy('updated_at', 'desc')
      .orderBy('agent_threads.id')
      .limit(limit)
      .offset(offset)
      .execute(),
    listed.select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.count) };
}
