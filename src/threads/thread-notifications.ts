import type { AppContext } from '../context.js';
import type { RunLife } from '../ports/run-life.js';
import type { RunTarget } from '../ports/runs.js';
import { decodeFrame } from '../runs/event-codec.js';
import { notificationText } from './thread-notification-text.js';
import { threadRunOf } from './thread-runs.store.js';
import { wakeThread } from './thread-turns.js';
import { recordInThread } from './threads.js';
import { executionOfRun, runEndFrames, threadById } from './threads.store.js';

/** What a notification says of a run's end: its result's summary, or why it failed. */
async function endingOf(ctx: AppContext, executionId: string): Promise<{ summary: string; reason: string }> {
  let summary = '';
  let reason = '';
  for (const frame of await runEndFrames(ctx.db, executionId)) {
    const event = decodeFrame(frame);
    if (event.type === 'execution.result') summary = event.payload.summary;
    if (event.type === 'agent.info') reason = event.payload.message;
  }
  return { summary, reason };
}

/**
 * When a run a thread started has ended (completed or failed), tells the thread with a
 * `<notification>` record and wakes its agent, whose next turn has the notification in its
 * history. Runs that no thread started, and runs only paused (idle), are left alone.
 */
export async function notifyThreadOfRunEnd(ctx: AppContext, executionId: string): Promise<void> {
  const link = await threadRunOf(ctx.db, executionId);
  if (!link) return;
  const [execution, thread] = await Promise.all([executionOfRun(ctx.db, executionId), threadById(ctx.db, link.thread_row_id)]);
  if (!execution || !thread) return;
  if (execution.status !== 'completed' && execution.status !== 'failed') return;
  const { summary, reason } = await endingOf(ctx, executionId);
  const what = `Run ${executionId} of ${execution.skill_slug}`;
  const text = notificationText(
    execution.status === 'completed' ? `${what} completed: ${summary}` : `${what} failed: ${reason || 'no reason was given'}`,
  );
  await recordInThread(ctx, thread.id, [{ type: 'notification', text, executionId }]);
  wakeThread(ctx, thread, link.user_id);
}

/** The threads' part in a run's life: a run a thread started tells that thread how it ended. */
export function notifyThreadsOfRunEnds(life: RunLife, ctx: AppContext): void {
  const notify = ({ executionId }: RunTarget) => notifyThreadOfRunEnd(ctx, executionId);
  life.on('run.completed', notify);
  life.on('run.failed', notify);
}
