import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Kysely, Selectable } from 'kysely';
import { updateArtifact } from '../artifacts/artifacts.store.js';
import { removeOrphans } from '../artifacts/blob-collection.js';
import type { AppContext } from '../context.js';
import type { Tables } from '../db/tables.js';
import type { WorkspaceSkillsTable } from '../db/tables-artifacts.js';
import { Conflict, Forbidden, NotFound } from '../errors.js';
import { holdWorkspace } from '../files/storage-quota.js';
import { requireOwnerOrAdmin } from '../identity/callers.js';
import type { Caller } from '../ports/callers.js';
import { invalidate } from '../realtime/control-messages.js';
import { deleteInstalledSkill, findInstalledSkill, hasRunInProgress } from './workspace-skills.store.js';

type RemovalContext = Pick<AppContext, 'db' | 'blobs' | 'clock' | 'config' | 'skills' | 'control'>;
export type InstalledRow = Selectable<WorkspaceSkillsTable>;

const VERB = { update: 'updated', remove: 'removed' } as const;
type Change = keyof typeof VERB;

/**
 * The installed skill a person asks to update or remove, once it is theirs to change: the
 * workspace's (another workspace's is unknown here), not one of the server's, changed by one
 * of the workspace's owners or admins (who answer for what the workspace runs), and not in
 * the middle of a run, whose sandbox reads its folder.
 */
export async function changeableSkill(
  ctx: Pick<AppContext, 'db' | 'skills'>,
  caller: Caller,
  slug: string,
  change: Change,
): Promise<InstalledRow> {
  if (ctx.skills.get(slug)) {
    throw new Forbidden(`${slug} is one of this server's own skills, so it cannot be ${VERB[change]} here. Ask the operator.`);
  }
  const installed = await findInstalledSkill(ctx.db, caller.workspaceId, slug);
  if (!installed) {
    throw new NotFound(`This workspace has no installed skill called ${slug}. See the list of skills for the ones it has.`);
  }
  requireOwnerOrAdmin(
    caller,
    `Only the workspace's owners and admins can change its skills, so ${slug} was not ${VERB[change]}. Ask one of them.`,
  );
  await refuseWhileRunning(ctx.db, installed, change);
  return installed;
}

async function refuseWhileRunning(db: Kysely<Tables>, installed: InstalledRow, change: Change): Promise<void> {
  if (await hasRunInProgress(db, installed.workspace_id, installed.slug)) {
    throw new Conflict(
      `A run of ${installed.slug} is in progress, so the skill was not ${VERB[change]}. Wait for it to end or cancel it, then try again.`,
    );
  }
}

/**
 * Forgets an installed skill inside a transaction: its row and stored files go, and the
 * artifact it came from (if any) can be installed again. Past runs keep their history and
 * artifacts: they name the skill by slug and hold their own files. Asked again with the
 * workspace held: a run may have started since changeableSkill looked.
 */
export async function forgetSkill(trx: Kysely<Tables>, installed: InstalledRow, change: Change): Promise<string[]> {
  await holdWorkspace(trx, installed.workspace_id);
  await refuseWhileRunning(trx, installed, change);
  const digests = await deleteInstalledSkill(trx, installed.workspace_id, installed.slug);
  if (installed.artifact_id !== null) await updateArtifact(trx, installed.artifact_id, { is_installed: 0 });
  return digests;
}

/** After the rows went: the folders this node wrote for the skill, and the blobs nothing else uses. */
export async function clearForgottenSkill(ctx: RemovalContext, installed: InstalledRow, digests: string[]): Promise<void> {
  const copies = [installed.dir];
  if (installed.artifact_id !== null) {
    const root = path.join(ctx.config.dataDir, 'installed-skills', installed.workspace_id);
    copies.push(path.join(root, `${installed.slug}-${installed.artifact_id}`));
  }
  await Promise.all(copies.map((dir) => rm(dir, { recursive: true, force: true })));
  if (digests.length > 0) await ctx.blobs.exclusive(() => removeOrphans(ctx, digests));
}

/** Removes a skill installed into the caller's workspace; it no longer runs or lists. */
export async function removeSkill(ctx: RemovalContext, caller: Caller, slug: string): Promise<void> {
  const installed = await changeableSkill(ctx, caller, slug, 'remove');
  const digests = await ctx.db.transaction().execute((trx) => forgetSkill(trx, installed, 'remove'));
  await clearForgottenSkill(ctx, installed, digests);
  invalidate(ctx, caller.workspaceId, ['skills']);
}
