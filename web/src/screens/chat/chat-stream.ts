import { useEffect, useRef, useState } from 'preact/hooks';
import type { ThreadRecord } from '../../../../src/sdk/thread-types';
import { messageOf } from '../../api';
import { followThread } from '../../requests/threads';

const BATCH_MS = 16;

export interface FollowedThread {
  records: ThreadRecord[];
  /** Why following stopped, in words; undefined while it goes on. */
  lost: string | undefined;
  reconnect: () => void;
}

/**
 * A thread's records, from its first, then live. The SDK's stream resumes a dropped
 * connection itself; when it gives up, `reconnect` starts again after the last record held.
 * Chunks of a streamed reply arrive many a second: they are added in batches.
 */
export function useThread(resourceId: string, threadId: string): FollowedThread {
  const [records, setRecords] = useState<ThreadRecord[]>([]);
  const [lost, setLost] = useState<string | undefined>();
  const [attempt, setAttempt] = useState(0);
  const held = useRef<{ threadId: string; last: number }>({ threadId, last: 0 });

  useEffect(() => {
    if (held.current.threadId !== threadId) {
      held.current = { threadId, last: 0 };
      setRecords([]);
    }
    setLost(undefined);
    const controller = new AbortController();
    let batch: ThreadRecord[] = [];
    let flushTimer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      const arrived = batch;
      batch = [];
      flushTimer = undefined;
      setRecords((before) => before.concat(arrived));
    };
    void (async () => {
      try {
        const stream = followThread(resourceId, threadId, { afterSequence: held.current.last, signal: controller.signal });
        for await (const record of stream) {
          held.current.last = record.sequence;
          batch.push(record);
          flushTimer ??= setTimeout(flush, BATCH_MS);
        }
      } catch (error) {
        if (!controller.signal.aborted) setLost(messageOf(error));
      }
    })();
    return () => {
      controller.abort();
      clearTimeout(flushTimer);
      if (batch.length > 0) flush();
    };
  }, [resourceId, threadId, attempt]);

  return { records, lost, reconnect: () => setAttempt((count) => count + 1) };
}
