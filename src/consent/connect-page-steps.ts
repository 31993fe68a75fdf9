import type { AppContext } from '../context.js';
import { Conflict, Expired, Forbidden, NotFound } from '../errors.js';
import { personalCaller } from '../identity/callers.js';
import { checkPassword, findUser } from '../identity/users.js';
import type { UserRow } from '../identity/users.store.js';
import { inWorkspace } from '../identity/workspaces.js';
import type { Caller } from '../ports/callers.js';
import { type ConnectRequestView, decideConnect, getConnectRequest } from './agent-connect.js';
import { connectRequestById } from './agent-connect.store.js';
import { issueConnectTicket, readConnectTicket } from './connect-page-ticket.js';

type PageDeps = Pick<AppContext, 'db' | 'clock' | 'config' | 'rateLimits' | 'credentials' | 'keys'>;

/**
 * The page has no session: it acts as the person who signed in on it, in the workspace of
 * the key (where the API would need x-workspace-id). Only the key's owner gets that far;
 * anyone else is told the request does not exist, as on the API.
 */
async function ownerCaller(ctx: Pick<AppContext, 'db'>, user: UserRow, requestId: string): Promise<Caller> {
  const row = await connectRequestById(ctx.db, requestId);
  if (!row || row.user_id !== user.id) throw new NotFound('Connect request not found');
  try {
    return await inWorkspace(ctx, personalCaller(user, `page:${user.id}`), row.workspace_id);
  } catch (error) {
    if (error instanceof Forbidden) throw new NotFound('Connect request not found');
    throw error;
  }
}

export interface ConnectReview {
  request: ConnectRequestView;
  ticket: string;
}

/** "Sign in and review": the password, then a request still pending, then a ticket for deciding it. */
export async function reviewConnectOnPage(
  ctx: PageDeps,
  requestId: string,
  form: { email: string; password: string },
): Promise<ConnectReview> {
  const user = await checkPassword(ctx, form.email, form.password);
  const request = await getConnectRequest(ctx, await ownerCaller(ctx, user, requestId), requestId);
  if (request.status === 'expired') throw new Expired('This connect request has expired; ask again from your agent');
  if (request.status !== 'pending') throw new Conflict(`This connect request was already ${request.status}`);
  return { request, ticket: issueConnectTicket(ctx, user.id, requestId, request.expiresAt) };
}

/** Decides with a ticket issued for this very request; null when the ticket is forged, expired or for another. */
export async function decideConnectOnPage(
  ctx: PageDeps,
  requestId: string,
  form: { ticket: string; decision: 'approve' | 'deny' },
): Promise<ConnectRequestView | null> {
  const ticket = readConnectTicket(ctx, form.ticket);
  const user = ticket && ticket.requestId === requestId ? await findUser(ctx, ticket.userId) : undefined;
  if (!user) return null;
  return decideConnect(ctx, await ownerCaller(ctx, user, requestId), requestId, form.decision);
}
