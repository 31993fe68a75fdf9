/**
 * The app's recent answers to GET requests, shared by every screen. The server allows a
 * session 100 requests a minute; a person moving between sections would spend that on
 * asking again for what was answered seconds ago. So:
 * - the same read already on its way is joined, never sent twice;
 * - a screen appearing takes an answer younger than FRESH_MS instead of asking again (only
 *   then: a refresh, a poll or a Retry always asks the server);
 * - anything the app changes (every request that is not a read), a change the live socket
 *   announces, and signing out forget every answer, so nothing stale outlives a change.
 */

/** Long enough to cover moving between a few sections; short enough that nothing looks old. */
export const FRESH_MS = 20_000;

interface Entry {
  promise: Promise<unknown>;
  /** When the answer came; undefined while the request is on its way. */
  answeredAt: number | undefined;
}

const entries = new Map<string, Entry>();
let reuseFresh = false;

/** The answer to the read of `path`: joined if on its way, reused if fresh and allowed, else sent. */
export function sharedRead<T>(path: string, send: () => Promise<T>): Promise<T> {
  const entry = entries.get(path);
  if (entry && (entry.answeredAt === undefined || (reuseFresh && Date.now() - entry.answeredAt < FRESH_MS))) {
    return entry.promise as Promise<T>;
  }
  const sent: Entry = { promise: send(), answeredAt: undefined };
  entries.set(path, sent);
  sent.promise.then(
    () => {
      sent.answeredAt = Date.now();
    },
    () => {
      // A failure is not an answer to share: the next read asks again.
      if (entries.get(path) === sent) entries.delete(path);
    },
  );
  return sent.promise as Promise<T>;
}

/**
 * Runs `fetcher`, letting the reads it sends at once take a fresh shared answer. Reads it
 * sends later (after an await) ask the server: a screen's first look is what may be reused.
 */
export function reusingFresh<T>(fetcher: () => Promise<T>): Promise<T> {
  const before = reuseFresh;
  reuseFresh = true;
  try {
    return fetcher();
  } finally {
    reuseFresh = before;
  }
}

/** Forgets every answer (something changed): the next read of anything asks the server. */
export function forgetReads(): void {
  entries.clear();
}
