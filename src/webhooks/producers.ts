import type { Kysely } from 'kysely';
import { findArtifact } from '../artifacts/artifacts.store.js';
import type { Webhooks } from '../context.js';
import type { Tables } from '../db/tables.js';
import type { StopReason } from '../db/tables-runs.js';
import { findUserById } from '../identity/users.store.js';
import type { RunLife } from '../ports/run-life.js';
import { queueWebhookEvent } from './outbox.js';

/** How a run ended, as its closing transaction knows it. */
interface RunEnd {
  executionId: string;
  workspaceId: string;
  skillSlug: string;
  /** Where the run was started from (the execution's `interface`). */
  interface: string;
  status: 'completed' | 'failed';
  stopReason: StopReason;
  cost: number;
  /** Why a failed run failed. */
  reason?: string;
  artifactId?: string;
}

/**
 * Queues `execution.completed` or `execution.failed`, and `artifact.created` for the
 * artifact a completed run made, in the transaction that stores the run's closing events.
 * Returns whether anything was queued.
 */
async function queueRunEnd(trx: Kysely<Tables>, nowIso: string, end: RunEnd): Promise<boolean> {
  const { workspaceId } = end;
  const queued = await queueWebhookEvent(trx, nowIso, {
    workspaceId,
    type: end.status === 'completed' ? 'execution.completed' : 'execution.failed',
    data: {
      executionId: end.executionId,
      workspaceId,
      skillSlug: end.skillSlug,
      status: end.status,
      stopReason: end.stopReason,
      cost: end.cost,
      interface: end.interface,
      finishedAt: nowIso,
      ...(end.reason === undefined ? {} : { reason: end.reason }),
      ...(end.artifactId === undefined ? {} : { artifactId: end.artifactId }),
    },
  });
  const artifact = end.artifactId === undefined ? undefined : await findArtifact(trx, end.artifactId);
  if (!artifact) return queued;
  const artifactQueued = await queueWebhookEvent(trx, nowIso, {
    workspaceId,
    type: 'artifact.created',
    data: {
      artifactId: artifact.id,
      workspaceId,
      executionId: end.executionId,
      title: artifact.title,
      artifactType: artifact.artifact_type,
      bundleType: artifact.bundle_type,
      fileType: artifact.file_type,
      contentSize: artifact.content_size,
      createdAt: artifact.created_at,
    },
  });
  return queued || artifactQueued;
}

/**
 * Queues `credits.granted` in the transaction that granted them. Credits are a person's,
 * not a workspace's, so the event goes to the endpoints of the person's own workspace.
 */
export async function queueCreditGrant(
  trx: Kysely<Tables>,
  nowIso: string,
  grant: { userId: string; amount: number; description: string },
): Promise<boolean> {
  const user = await findUserById(trx, grant.userId);
  if (!user) return false;
  const workspaceId = user.personal_workspace_id;
  return queueWebhookEvent(trx, nowIso, {
    workspaceId,
    type: 'credits.granted',
    // The balance as this grant left it: read in the granting transaction, after the grant.
    data: { userId: grant.userId, workspaceId, amount: grant.amount, balance: user.balance, description: grant.description },
  });
}

/**
 * A run's webhooks (execution.completed or .failed, and artifact.created) are queued in the
 * transaction that stores its end, so they commit with its closing events or not at all, and
 * are looked for as soon as that transaction commits.
 */
export function queueWebhooksOfRunEnds(life: RunLife, webhooks: Pick<Webhooks, 'kick'>): void {
  const kick = () => webhooks.kick();
  life.within('run.completed', async (trx, end) => {
    const queued = await queueRunEnd(trx, end.at, { ...end, status: 'completed', stopReason: 'end_turn' });
    return queued ? kick : undefined;
  });
  life.within('run.failed', async (trx, end) => {
    const queued = await queueRunEnd(trx, end.at, { ...end, status: 'failed' });
    return queued ? kick : undefined;
  });
}
