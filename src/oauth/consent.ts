import type { AppContext } from '../context.js';
import { Conflict, Forbidden, NotFound } from '../errors.js';
import { findGrantWorkspace, insertGrantWorkspace } from '../identity/oauth-records.store.js';
import { findUser } from '../identity/users.js';
import { listMemberships } from '../identity/workspaces.store.js';

export interface WorkspaceChoice {
  id: string;
  label: string;
  personal: boolean;
}

/** The workspaces a person may let a client act in: every one they are a member of. */
export async function workspaceChoices(ctx: Pick<AppContext, 'db'>, userId: string): Promise<WorkspaceChoice[]> {
  const memberships = await listMemberships(ctx.db, userId);
  return memberships.map((row) => ({
    id: row.id,
    label: row.is_personal === 1 ? 'Personal' : (row.name ?? row.id),
    personal: row.is_personal === 1,
  }));
}

/**
 * Refuses a workspace the person may not let a client act in. The choice comes from a form,
 * so it is checked before the grant is saved, and nothing is left behind by a refusal.
 */
export async function requireWorkspaceChoice(ctx: Pick<AppContext, 'db' | 'clock'>, userId: string, workspaceId: string) {
  if (!(await findUser(ctx, userId))) throw new NotFound('No such account');
  const choices = await workspaceChoices(ctx, userId);
  if (!choices.some((choice) => choice.id === workspaceId)) throw new Forbidden('You are not a member of this workspace');
}

/**
 * Records the workspace chosen at consent for a grant; every token issued under the grant,
 * and every refresh of it, acts there for the grant's whole life. It checks the choice itself
 * too, so no caller can bind a foreign workspace, and it never moves a grant already bound:
 * its tokens stay where they were issued (a consent elsewhere makes a new grant).
 */
export async function bindGrantToWorkspace(
  ctx: Pick<AppContext, 'db' | 'clock'>,
  binding: { userId: string; grantId: string; workspaceId: string },
): Promise<void> {
  await requireWorkspaceChoice(ctx, binding.userId, binding.workspaceId);
  await insertGrantWorkspace(ctx.db, {
    grant_id: binding.grantId,
    user_id: binding.userId,
    workspace_id: binding.workspaceId,
    created_at: ctx.clock.now().toISOString(),
  });
  const bound = await findGrantWorkspace(ctx.db, binding.grantId);
  if (bound?.workspace_id !== binding.workspaceId || bound.user_id !== binding.userId) {
    throw new Conflict('This app already acts in another workspace under this approval. Start the sign-in again.');
  }
}
