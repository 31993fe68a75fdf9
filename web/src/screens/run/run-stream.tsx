import { useEffect, useRef, useState } from 'preact/hooks';
import { SkilletError } from '../../../../src/sdk/errors';
import type { ExecutionEvent } from '../../../../src/sdk/types';
import { messageOf } from '../../api';
import { streamUrl } from '../../requests/executions';

/** One frame of an execution's stream (SPEC: Execution event). */
export type RunEvent = ExecutionEvent;

/**
 * open: frames flow; ended: the server closed the stream after the run's last event;
 * retrying: the connection dropped and a fresh one is on its way; missing: not this
 * workspace's execution (or none at all).
 */
export type StreamState = 'connecting' | 'open' | 'ended' | 'retrying' | 'missing';

interface Listener {
  onEvent: (event: RunEvent) => void;
  onState: (state: StreamState, error?: string) => void;
}

const MAX_DELAY_MS = 5000;
const BATCH_MS = 16;

/**
 * The event stream of one execution. Every (re)connection takes a fresh signed URL, since
 * the URL is the credential and it expires, and asks only for events after the last one
 * held (`lastSeq`), so nothing arrives twice. The server closes the stream after the
 * session.status_idle that ends a run; EventSource would then reconnect on its own (with
 * the first URL, which by then may be refused), so every closed source is closed here too
 * and reopened only by this class.
 */
class StreamConnection {
  #source: EventSource | undefined;
  #opening: Promise<void> | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #failures = 0;
  #lastSeq = 0;
  #lastType: string | undefined;
  #stopped = false;

  constructor(
    private readonly executionId: string,
    private readonly listener: Listener,
  ) {}

  /** Resolves once a stream is open, opening one if the last has ended (a resume needs one to watch). */
  ensureOpen(): Promise<void> {
    if (this.#source?.readyState === EventSource.OPEN) return Promise.resolve();
    this.#opening ??= this.#connect();
    return this.#opening;
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#retryTimer);
    this.#source?.close();
  }

  async #connect(): Promise<void> {
    clearTimeout(this.#retryTimer);
    let sseUrl: string;
    try {
      sseUrl = await streamUrl(this.executionId);
    } catch (error) {
      this.#opening = undefined;
      // Refused for good (an id of another workspace, or no id at all): retrying cannot help.
      const refused = error instanceof SkilletError && error.status >= 400 && error.status < 500 && error.status !== 429;
      if (refused) this.listener.onState('missing');
      else this.#retry(messageOf(error));
      throw error;
    }
    if (this.#stopped) return;
    await new Promise<void>((resolve, reject) => {
      const source = new EventSource(this.#lastSeq > 0 ? `${sseUrl}&lastSeq=${this.#lastSeq}` : sseUrl);
      this.#source = source;
      source.onopen = () => {
        this.#failures = 0;
        this.listener.onState('open');
        resolve();
      };
      source.onmessage = (message: MessageEvent<string>) => this.#receive(JSON.parse(message.data) as RunEvent);
      source.onerror = () => {
        source.close();
        if (this.#source !== source || this.#stopped) return;
        this.#source = undefined;
        this.#opening = undefined;
        if (this.#lastType === 'session.status_idle') {
          this.listener.onState('ended');
          resolve();
        } else {
          this.#retry('The connection to the run dropped; reconnecting…');
          reject(new Error('The event stream closed'));
        }
      };
    });
  }

  #receive(event: RunEvent): void {
    if (event.sequence <= this.#lastSeq) return;
    this.#lastSeq = event.sequence;
    this.#lastType = event.type;
    this.listener.onEvent(event);
  }

  #retry(error: string): void {
    if (this.#stopped) return;
    this.listener.onState('retrying', error);
    this.#failures += 1;
    const delay = Math.min(MAX_DELAY_MS, 250 * 2 ** this.#failures);
    this.#retryTimer = setTimeout(() => void this.ensureOpen().catch(() => undefined), delay);
  }
}

export interface RunStream {
  events: RunEvent[];
  /** When each of `events` arrived here, by index: an event's time until its stored one is read. */
  arrivedAt: number[];
  state: StreamState;
  error: string | undefined;
  ensureOpen: () => Promise<void>;
}

/** The events of one execution as they arrive, each once, in order. */
export function useRunStream(executionId: string): RunStream {
  const [held, setHeld] = useState<{ events: RunEvent[]; arrivedAt: number[] }>({ events: [], arrivedAt: [] });
  const [status, setStatus] = useState<{ state: StreamState; error?: string | undefined }>({ state: 'connecting' });
  const connection = useRef<StreamConnection | undefined>(undefined);

  useEffect(() => {
    setHeld({ events: [], arrivedAt: [] });
    setStatus({ state: 'connecting' });
    // A replay arrives as thousands of messages at once: they are added in batches, so the
    // list is copied and rendered once per batch rather than once per event.
    let batch: RunEvent[] = [];
    let flushTimer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      const arrived = batch;
      batch = [];
      flushTimer = undefined;
      const at = Date.now();
      setHeld((before) => ({
        events: before.events.concat(arrived),
        arrivedAt: before.arrivedAt.concat(arrived.map(() => at)),
      }));
    };
    const opened = new StreamConnection(executionId, {
      onEvent: (event) => {
        batch.push(event);
        flushTimer ??= setTimeout(flush, BATCH_MS);
      },
      onState: (state, error) => setStatus({ state, error }),
    });
    connection.current = opened;
    opened.ensureOpen().catch(() => undefined);
    return () => {
      opened.stop();
      clearTimeout(flushTimer);
    };
  }, [executionId]);

  const ensureOpen = () => connection.current?.ensureOpen() ?? Promise.reject(new Error('The run is not loaded'));
  return { events: held.events, arrivedAt: held.arrivedAt, state: status.state, error: status.error, ensureOpen };
}
