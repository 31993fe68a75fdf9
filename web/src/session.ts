import { useEffect, useState } from 'preact/hooks';
import type { Me } from '../../src/sdk/types';
import { onSignedOut } from './api';
import { setLiveWanted } from './live';
import { createAccount, currentSession, logIn, logOut } from './requests/session';

/** Who is signed in: undefined while the first look is under way, null when nobody is. */
let me: Me | null | undefined;
const listeners = new Set<() => void>();

function setMe(next: Me | null): void {
  me = next;
  setLiveWanted(next !== null);
  for (const listener of listeners) listener();
}

/** Whether this server mails reset links, as it said at the last look. */
let mailing = false;

export function mailsResetLinks(): boolean {
  return mailing;
}

/** Asks the server who the cookie belongs to (nobody is an answer, not an error). */
export async function refreshMe(): Promise<void> {
  const session = await currentSession();
  mailing = session.mailsResetLinks;
  setMe(session.me);
}

export async function signIn(email: string, password: string): Promise<void> {
  await logIn(email, password);
  await refreshMe();
}

export async function signUp(email: string, password: string): Promise<void> {
  await createAccount(email, password);
  await refreshMe();
}

export async function signOut(): Promise<void> {
  await logOut();
  setMe(null);
}

onSignedOut(() => {
  if (me) setMe(null);
});

export function useMe(): Me | null | undefined {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = () => setTick((tick) => tick + 1);
    listeners.add(listener);
    if (me === undefined) void refreshMe().catch(() => setMe(null));
    return () => listeners.delete(listener);
  }, []);
  return me;
}

/** A workspace's name as people see it. */
export function workspaceLabel(workspace: { name: string | null; personal: boolean }): string {
  return workspace.personal ? 'Personal' : (workspace.name ?? 'Unnamed workspace');
}
