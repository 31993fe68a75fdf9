import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { preparedRows } from '../db/prepared-lookup.js';
import type { Tables } from '../db/tables.js';
import type {
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookDeliveryStatus,
  WebhookEndpointsTable,
  WebhookMessagesTable,
} from '../db/tables-webhooks.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type MessageRow = Selectable<WebhookMessagesTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

/** A delivery with what its list and detail show of its message. */
export type DeliveryWithMessage = DeliveryRow & { event_type: string; payload: string };

export async function insertEndpoint(db: Kysely<Tables>, row: EndpointRow): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

export async function countEndpoints(db: Kysely<Tables>, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export function listEndpoints(db: Kysely<Tables>, workspaceId: string): Promise<EndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * The enabled endpoints of a workspace: the ones a new event goes to. Prepared: every grant
 * of credits and every run's end asks, inside its transaction.
 */
export const enabledEndpoints: (db: Kysely<Tables>, workspaceId: string) => Promise<EndpointRow[]> = preparedRows(
  (db, workspaceId: string) =>
    db.selectFrom('webhook_endpoints').selectAll().where('workspace_id', '=', workspaceId).where('enabled', '=', 1),
);

export function endpointIn(db: Kysely<Tables>, workspaceId: string, id: string): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

export async function updateEndpoint(db: Kysely<Tables>, id: string, change: Updateable<WebhookEndpointsTable>): Promise<void> {
  await db.updateTable('webhook_endpoints').set(change).where('id', '=', id).execute();
}

export async function deleteEndpoint(db: Kysely<Tables>, workspaceId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function insertMessage(db: Kysely<Tables>, row: MessageRow): Promise<void> {
  await db.insertInto('webhook_messages').values(row).execute();
}

export async function insertDeliveries(db: Kysely<Tables>, rows: Insertable<WebhookDeliveriesTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('webhook_deliveries').values(rows).execute();
}

function deliveriesWithMessages(db: Kysely<Tables>) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_messages as m', 'm.id', 'd.message_id')
    .selectAll('d')
    .select(['m.event_type', 'm.payload']);
}

export async function pageOfDeliveries(
  db: Kysely<Tables>,
  endpointId: string,
  page: { limit: number; offset: number; status?: WebhookDeliveryStatus },
): Promise<{ rows: DeliveryWithMessage[]; total: number }> {
  let rows = deliveriesWithMessages(db).where('d.endpoint_id', '=', endpointId);
  let count = db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('endpoint_id', '=', endpointId);
  if (page.status) {
    rows = rows.where('d.status', '=', page.status);
    count = count.where('status', '=', page.status);
  }
  const [items, total] = await Promise.all([
    rows.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(page.limit).offset(page.offset).execute(),
    count.executeTakeFirstOrThrow(),
  ]);
  return { rows: items, total: Number(total.count) };
}

export function deliveryOf(db: Kysely<Tables>, endpointId: string, id: string): Promise<DeliveryWithMessage | undefined> {
  return deliveriesWithMessages(db).where('d.id', '=', id).where('d.endpoint_id', '=', endpointId).executeTakeFirst();
}

export function attemptsOf(db: Kysely<Tables>, deliveryId: string): Promise<AttemptRow[]> {
  return db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('number').execute();
}

/** Brings a pending delivery's next attempt forward to now. */
export async function makeDueNow(db: Kysely<Tables>, id: string, nowIso: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: nowIso })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/** Deliveries that have fallen due and that no node holds, oldest first. */
export async function dueDeliveryIds(db: Kysely<Tables>, nowIso: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', nowIso)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', nowIso)]))
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Takes a due delivery for this node until `lockedUntil`: one conditional update, so of
 * nodes racing for it exactly one gets it.
 */
export async function claimDelivery(db: Kysely<Tables>, id: string, nowIso: string, lockedUntil: string): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ locked_until: lockedUntil })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', nowIso)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', nowIso)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export type DeliveryToSend = NonNullable<Awaited<ReturnType<typeof deliveryToSend>>>;

/** What a node needs to send a claimed delivery. */
export function deliveryToSend(db: Kysely<Tables>, id: string) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_messages as m', 'm.id', 'd.message_id')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select([
      'd.id',
      'd.attempts',
      'd.message_id',
      'm.payload',
      'e.url',
      'e.secret_sealed',
      'e.previous_secret_sealed',
      'e.previous_secret_until',
      'e.enabled',
    ])
    .where('d.id', '=', id)
    .executeTakeFirst();
}

/** Logs an attempt and moves its delivery on, in one transaction. */
export async function recordAttempt(
  db: Kysely<Tables>,
  attempt: AttemptRow,
  change: Updateable<WebhookDeliveriesTable>,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('webhook_attempts').values(attempt).execute();
    await trx.updateTable('webhook_deliveries').set(change).where('id', '=', attempt.delivery_id).execute();
  });
}

/**
 * Deletes messages made before `beforeIso` that no delivery is still pending for; their
 * deliveries and attempt logs go with them (foreign keys cascade). Returns how many.
 */
export async function deleteSettledMessages(db: Kysely<Tables>, beforeIso: string): Promise<number> {
  const result = await db
    .deleteFrom('webhook_messages')
    .where('created_at', '<', beforeIso)
    .where(({ exists, not, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries')
            .select('webhook_deliveries.id')
            .whereRef('webhook_deliveries.message_id', '=', 'webhook_messages.id')
            .where('webhook_deliveries.status', '=', 'pending'),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
