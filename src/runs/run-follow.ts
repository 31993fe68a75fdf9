import type { AppContext } from '../context.js';
import type { Caller } from '../ports/callers.js';
import type { AnnouncedEvent } from '../ports/channels.js';
import { decodeFrame, type ExecutionEvent } from './event-codec.js';
import { executionOf } from './executions.js';

/**
 * How often the store is asked whether the run ended, in case its closing announcement
 * was missed (a bus across nodes may drop one); the bus is what ends the wait normally.
 */
const STORE_CHECK_MS = 2000;

export interface RunFollow {
  /** Settles when the run ends; rejects when the follower gave up (its signal) or the store failed. */
  ended: Promise<void>;
  stop: () => void;
}

/**
 * Follows an execution's run: subscribed to its events from now on, calling `onEvent` for
 * each, until a session.status_idle arrives or the store says it is over. Subscribe before
 * starting the run, so not even its first event goes unseen. An aborted `signal` (the
 * client went away) ends the following, never the run.
 */
export function followRun(
  ctx: AppContext,
  caller: Caller,
  executionId: string,
  onEvent: (event: ExecutionEvent) => void,
  signal: AbortSignal,
): RunFollow {
  let stop = () => {};
  const ended = new Promise<void>((resolve, reject) => {
    const receive = (announced: AnnouncedEvent) => {
      const event = decodeFrame(announced.frame);
      onEvent(event);
      if (event.type === 'session.status_idle') finish();
    };
    const check = setInterval(() => {
      executionOf(ctx, caller, executionId).then((row) => row.status !== 'working' && finish(), fail);
    }, STORE_CHECK_MS);
    function finish() {
      stop();
      resolve();
    }
    function fail(error: unknown) {
      stop();
      reject(error);
    }
    const abandon = () => fail(new Error('The client stopped waiting for the run'));
    stop = () => {
      clearInterval(check);
      ctx.bus.unsubscribe(executionId, receive);
      signal.removeEventListener('abort', abandon);
    };
    ctx.bus.subscribe(executionId, receive);
    signal.addEventListener('abort', abandon, { once: true });
    if (signal.aborted) abandon();
  });
  // It may settle while the run is still being started, before anyone awaits it; that is
  // not an unhandled rejection (whoever follows awaits it next).
  ended.catch(() => {});
  return { ended, stop: () => stop() };
}
