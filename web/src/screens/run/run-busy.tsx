import { useEffect, useState } from 'preact/hooks';
import type { HistoryItem } from '../../../../src/sdk/types';
import { cancelExecution, executionStatus } from '../../requests/executions';
import { Link } from '../../router';
import { formatTime } from '../../ui';

const WAIT_POLL_MS = 1500;

/**
 * Resolves once the execution is no longer working. Polled rather than pushed: a wait is
 * rare and short, and a status read costs the server less than a stream kept open for it.
 */
export async function waitUntilEnded(executionId: string, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    const status = await executionStatus(executionId);
    if (status.status !== 'working') return;
    await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
  }
  throw new DOMException('Stopped waiting', 'AbortError');
}

/** Cancels the run in the way; a run that ended meanwhile is just as good. */
export async function cancelRunning(executionId: string): Promise<void> {
  const answer = await cancelExecution(executionId);
  if (!answer.success && answer.actualStatus === 'working') throw new Error(answer.message);
}

const draftKey = (slug: string) => `skillet.draft.${slug}`;

/** Leaves `text` as the skill form's input, for a screen that sends the person there. */
export function keepDraft(slug: string, text: string): void {
  sessionStorage.setItem(draftKey(slug), text);
}

/**
 * The input typed on a skill's form, kept for the browser tab: leaving to look at the run
 * in the way, or a reload, does not lose it.
 */
export function useDraft(slug: string, initial: string): [string, (text: string) => void] {
  const key = draftKey(slug);
  const [text, setText] = useState(() => sessionStorage.getItem(key) ?? initial);
  useEffect(() => {
    if (text === '' || text === initial) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, text);
  }, [key, text, initial]);
  return [text, setText];
}

/**
 * Shown instead of starting when another run is going in the workspace (one runs at a
 * time): what is in the way, and the three ways on.
 */
export function BusyPanel({
  running,
  waiting,
  busy,
  onCancelAndRun,
  onWait,
  onStopWaiting,
}: {
  running: HistoryItem;
  waiting: boolean;
  busy: boolean;
  onCancelAndRun: () => void;
  onWait: () => void;
  onStopWaiting: () => void;
}) {
  const href = `/runs/${encodeURIComponent(running.executionId)}`;
  return (
    <div class="notice notice-info busy-panel" role="status">
      {waiting ? (
        <p>
          Waiting for the <Link href={href}>{running.skillName} run</Link> to finish. Yours starts as soon as it does; keep this
          page open.
        </p>
      ) : (
        <p>
          A <Link href={href}>{running.skillName} run</Link> is going in this workspace (started {formatTime(running.startedAt)}),
          and one runs at a time. Your input is kept.
        </p>
      )}
      <div class="row">
        {waiting ? (
          <button type="button" onClick={onStopWaiting}>
            Stop waiting
          </button>
        ) : (
          <>
            <button type="button" class="primary" disabled={busy} onClick={onWait}>
              Run when it finishes
            </button>
            <button type="button" class="danger" disabled={busy} onClick={onCancelAndRun}>
              Cancel it and run this
            </button>
            <Link href={href} class="button">
              Open the running run
            </Link>
          </>
        )}
      </div>
    </div>
  );
}
