import type { AppContext } from '../context.js';
import { Conflict, Expired } from '../errors.js';
import { personalCaller } from '../identity/callers.js';
import { checkPassword, findUser } from '../identity/users.js';
import type { UserRow } from '../identity/users.store.js';
import { inWorkspace, listWorkspaces, type WorkspaceView } from '../identity/workspaces.js';
import type { Caller } from '../ports/callers.js';
import { type ActivationDetails, confirmActivation, denyActivation, lookupActivation } from './activation.js';
import { issueTicket, readTicket } from './page-ticket.js';

/** What the verification page's two steps need: sign-in, the codes, and the ticket between them. */
type PageDeps = Pick<AppContext, 'db' | 'clock' | 'config' | 'rateLimits' | 'credentials' | 'keys' | 'control'>;

/** The page has no session of its own: it acts as the person who signed in on it, in their personal workspace. */
function pageCaller(user: UserRow): Caller {
  return personalCaller(user, `page:${user.id}`);
}

export interface PageReview {
  details: ActivationDetails;
  /** Carried by the decision form in place of a session. */
  ticket: string;
  /** Where the person may put the device's key. */
  workspaces: WorkspaceView[];
}

/** "Sign in and review": the password, then a code still awaiting a decision, then a ticket for deciding it. */
export async function reviewOnPage(ctx: PageDeps, form: { code: string; email: string; password: string }): Promise<PageReview> {
  const user = await checkPassword(ctx, form.email, form.password);
  const caller = pageCaller(user);
  const details = await lookupActivation(ctx, caller, form.code);
  if (details.status === 'expired') throw new Expired('This code has expired; start again on your device');
  if (details.status !== 'pending') throw new Conflict(`This code is already ${details.status}`);
  const ticket = issueTicket(ctx, user.id, details.user_code, details.expires_at);
  return { details, ticket, workspaces: await listWorkspaces(ctx, caller) };
}

export interface TicketHolder {
  caller: Caller;
  userCode: string;
}

/** Who a decision form's ticket was issued to, and for which code; null once it has expired, or if forged. */
export async function ticketHolder(ctx: Pick<AppContext, 'db' | 'clock' | 'keys'>, text: string): Promise<TicketHolder | null> {
  const ticket = readTicket(ctx, text);
  const user = ticket ? await findUser(ctx, ticket.userId) : undefined;
  if (!ticket || !user) return null;
  return { caller: pageCaller(user), userCode: ticket.userCode };
}

/** Denies the code, or approves it with the key going to the workspace chosen on the page. */
export async function decideOnPage(
  ctx: PageDeps,
  holder: TicketHolder,
  choice: { decision: 'approve' | 'deny'; workspace: string },
): Promise<void> {
  if (choice.decision === 'deny') return denyActivation(ctx, holder.caller, holder.userCode);
  const acting = await inWorkspace(ctx, holder.caller, choice.workspace);
  await confirmActivation(ctx, acting, holder.userCode, { workspaceNamed: true });
}
