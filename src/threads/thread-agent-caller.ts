import type { AppContext } from '../context.js';
import { callerOfRows } from '../identity/callers.js';
import { findUserById } from '../identity/users.store.js';
import { findMembership } from '../identity/workspaces.store.js';
import type { Caller } from '../ports/callers.js';
import type { ThreadRef } from '../ports/thread-records.js';

/**
 * Whom a thread's tools act as: the person whose message started the turn, in the thread's
 * workspace, with the least a credential can hold. It is built as an API key would be
 * (bound to the one workspace, not a signed-in session, so session-only actions stay
 * closed) narrowed to the `write` scope (read and run; never admin), and its credential id
 * names the thread, so execution starts it makes are counted under the thread. Undefined
 * when the person is gone or no longer a member of the workspace.
 */
export async function threadCaller(ctx: Pick<AppContext, 'db'>, thread: ThreadRef): Promise<Caller | undefined> {
  const [user, membership] = await Promise.all([
    findUserById(ctx.db, thread.userId),
    findMembership(ctx.db, thread.userId, thread.workspaceId),
  ]);
  if (!user || !membership) return undefined;
  const caller = callerOfRows(
    'api_key',
    `thread:${thread.id}`,
    { ...user, user_id: user.id },
    { id: membership.id, name: membership.name, personal: membership.is_personal === 1, role: membership.role },
  );
  return { ...caller, scopes: ['write'], scopesEnforced: true };
}
