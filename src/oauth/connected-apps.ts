import type { AppContext } from '../context.js';
import { NotFound } from '../errors.js';
import { requireSignedInPerson } from '../identity/callers.js';
import { clientRecord, deleteGrant, grantsOfUser } from '../identity/oauth-records.store.js';
import type { Caller } from '../ports/callers.js';
import { announceRevocation } from '../realtime/control-messages.js';

export interface ConnectedApp {
  /** The grant: what the person allowed this app, in one workspace. */
  id: string;
  clientId: string;
  name: string;
  workspaceId: string;
  scopes: string[];
  connectedAt: string;
}

interface GrantPayload {
  clientId?: string;
  resources?: Record<string, string>;
}

interface ClientPayload {
  client_name?: string;
}

/** A key or an OAuth token (an app itself) does not see or disconnect the person's apps. */
const APPS_ARE_PERSONAL = 'Only you, signed in to the app, can see and disconnect your apps.';

/** The apps the person let act for them (OAuth grants still standing), the latest first. */
export async function listConnectedApps(ctx: Pick<AppContext, 'db'>, caller: Caller): Promise<ConnectedApp[]> {
  requireSignedInPerson(caller, APPS_ARE_PERSONAL);
  const rows = await grantsOfUser(ctx.db, caller.userId);
  return Promise.all(
    rows.map(async (row) => {
      const grant = JSON.parse(row.grant_payload) as GrantPayload;
      const clientId = grant.clientId ?? '';
      const client = await clientRecord(ctx.db, clientId);
      const name = (client && (JSON.parse(client.payload) as ClientPayload).client_name) || 'An app with no name';
      const scopes = [...new Set(Object.values(grant.resources ?? {}).flatMap((granted) => granted.split(' ')))].filter(Boolean);
      return { id: row.grant_id, clientId, name, workspaceId: row.workspace_id, scopes, connectedAt: row.created_at };
    }),
  );
}

/** Disconnects an app: every token it holds stops working at once, and its sockets close. */
export async function disconnectApp(
  ctx: Pick<AppContext, 'db' | 'clock' | 'control'>,
  caller: Caller,
  grantId: string,
): Promise<void> {
  requireSignedInPerson(caller, APPS_ARE_PERSONAL);
  const mine = (await grantsOfUser(ctx.db, caller.userId)).some((row) => row.grant_id === grantId);
  if (!mine) throw new NotFound('There is no such app connected to your account.');
  await deleteGrant(ctx.db, grantId);
  announceRevocation(ctx, grantId);
}
