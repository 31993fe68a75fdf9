import { useEffect, useState } from 'preact/hooks';
import { controlSocketUrl } from './requests/events';
import { forgetReads } from './shared-reads';

/**
 * The control-plane socket: one per page, opened with a fresh signed URL each time (the
 * signature is checked only at the upgrade), reopened with backoff when it drops. Every
 * cache-invalidate, and every run that starts or ends, bumps a version that loaders
 * watch, so lists refresh on their own.
 */
export type LiveStatus = 'connecting' | 'live' | 'offline';

let status: LiveStatus = 'offline';
let version = 0;
/** How often the socket came back: anything may have changed while it was away. */
let reopened = 0;
/** Per collection a cache-invalidate names ('workspaces', 'keys', ...), how often it changed. */
const keyVersions = new Map<string, number>();
const pendingKeys = new Set<string>();
let socket: WebSocket | null = null;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let attempts = 0;
let wanted = false;
/** Whether the socket has been open since sign-in: only an opening after a drop can have missed changes. */
let wasOpen = false;
const listeners = new Set<() => void>();

const DATA_CHANGES = new Set(['cache-invalidate', 'execution-started', 'execution-completed', 'execution-failed']);
let bumpTimer: ReturnType<typeof setTimeout> | undefined;

/** A burst of signals (a run ending announces several) becomes one reload. */
function bump(keys: readonly string[] = []): void {
  for (const key of keys) pendingKeys.add(key);
  if (bumpTimer !== undefined) return;
  bumpTimer = setTimeout(() => {
    bumpTimer = undefined;
    version += 1;
    // What changed may be in any answer held for the screens: the next look asks the server.
    forgetReads();
    for (const key of pendingKeys) keyVersions.set(key, (keyVersions.get(key) ?? 0) + 1);
    pendingKeys.clear();
    changed();
  }, 100);
}

function changed(): void {
  for (const listener of listeners) listener();
}

function setStatus(next: LiveStatus): void {
  status = next;
  changed();
}

function scheduleRetry(): void {
  if (!wanted) return;
  const delay = Math.min(30_000, 1000 * 2 ** attempts);
  attempts += 1;
  retryTimer = setTimeout(() => void open(), delay);
}

async function open(): Promise<void> {
  if (!wanted) return;
  setStatus('connecting');
  try {
    const url = await controlSocketUrl();
    if (!wanted) return;
    const opened = new WebSocket(url);
    socket = opened;
    opened.onopen = () => {
      attempts = 0;
      setStatus('live');
      // The first opening follows the screens' first loads by a moment: loading them all
      // again then doubled every page's requests. After a drop, anything may have changed.
      if (wasOpen) {
        version += 1;
        reopened += 1;
        forgetReads();
        changed();
      }
      wasOpen = true;
    };
    opened.onmessage = (message) => {
      try {
        const event = JSON.parse(String(message.data)) as { type?: string; keys?: unknown };
        // Progress comes with every event of every run: lists change only when runs start or end.
        if (event.type && DATA_CHANGES.has(event.type)) {
          bump(Array.isArray(event.keys) ? event.keys.filter((key): key is string => typeof key === 'string') : []);
        }
      } catch {
        // not ours to read
      }
    };
    opened.onclose = () => {
      if (socket === opened) socket = null;
      setStatus('offline');
      scheduleRetry();
    };
  } catch {
    setStatus('offline');
    scheduleRetry();
  }
}

/** Opens the socket while someone is signed in; closes it when they sign out. */
export function setLiveWanted(next: boolean): void {
  if (wanted === next) return;
  wanted = next;
  clearTimeout(retryTimer);
  if (next) {
    attempts = 0;
    wasOpen = false;
    void open();
  } else {
    const current = socket;
    socket = null;
    current?.close();
    setStatus('offline');
  }
}

/**
 * The socket's state and the data version, re-rendering when either moves. With `watch`,
 * the version moves only when one of those collections changed (or the socket came back),
 * for what runs starting and ending do not touch.
 */
export function useLive(watch?: readonly string[]): { status: LiveStatus; version: number } {
  const [, setTick] = useState(0);
  const shown = { status, version: watchedVersion(watch) };
  useEffect(() => {
    const listener = () => setTick((tick) => tick + 1);
    listeners.add(listener);
    // The socket may have opened (or a list changed) between the first render and now, announced
    // before this listener was there to hear it: the screen would show "Connecting" for good.
    if (status !== shown.status || watchedVersion(watch) !== shown.version) listener();
    return () => listeners.delete(listener);
  }, []);
  return shown;
}

function watchedVersion(watch: readonly string[] | undefined): number {
  return watch === undefined ? version : watch.reduce((sum, key) => sum + (keyVersions.get(key) ?? 0), reopened);
}
