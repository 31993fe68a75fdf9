import type { AppContext } from '../context.js';
import { ExecutionRunning, NotFound } from '../errors.js';
import { requireOwnerOrAdmin } from '../identity/callers.js';
import type { Caller } from '../ports/callers.js';
import { type ArtifactRow, findInWorkspace } from './artifacts.store.js';

const STILL_WRITING = 'The run that writes this artifact is still going. Try again once it has finished.';

/** The caller's artifact: 404 in another workspace, 429 while its run still writes it. */
export async function readableArtifact(ctx: Pick<AppContext, 'db'>, caller: Caller, id: string): Promise<ArtifactRow> {
  const artifact = await findInWorkspace(ctx.db, caller.workspaceId, id);
  if (!artifact) throw new NotFound('Artifact not found');
  if (artifact.status === 'pending') throw new ExecutionRunning(STILL_WRITING);
  return artifact;
}

/**
 * The caller's artifact, for changing what others can see of it: publishing, unpublishing
 * and deleting are for the workspace's owners and admins (and service admins). A plain
 * member who could delete could take down what an owner published, which unpublish forbids.
 */
export async function manageableArtifact(ctx: Pick<AppContext, 'db'>, caller: Caller, id: string): Promise<ArtifactRow> {
  const artifact = await findInWorkspace(ctx.db, caller.workspaceId, id);
  if (!artifact) throw new NotFound('Artifact not found');
  requireOwnerOrAdmin(caller, 'Only the workspace owner or an admin can publish, unpublish or delete artifacts');
  if (artifact.status === 'pending') throw new ExecutionRunning(STILL_WRITING);
  return artifact;
}
