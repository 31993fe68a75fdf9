/**
 * The input of a run created on the skill screen, waiting for the run screen to open its
 * stream: SPEC's order is create, open the stream, then post the user.message that starts
 * the run, so the screen that watches is the one that starts it.
 */
const pendingStarts = new Map<string, string>();

export function queueStart(executionId: string, input: string): void {
  pendingStarts.set(executionId, input);
}

/** The queued input for this execution, handed out once. */
export function takeStart(executionId: string): string | undefined {
  const input = pendingStarts.get(executionId);
  pendingStarts.delete(executionId);
  return input;
}
