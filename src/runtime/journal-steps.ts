import type { TokenUsage } from '../language-models.js';
import type { ContentBlock, ToolResult } from '../models/conversation.js';

/**
 * One step an agent run completed, as its journal keeps it: enough to rebuild the
 * conversation exactly (thinking signatures included) on another worker.
 */
export type JournalStep =
  | { kind: 'model_reply'; content: ContentBlock[]; usage: TokenUsage }
  /** A tool call with effects outside the sandbox, recorded before it runs: it is never repeated blindly. */
  | { kind: 'tool_started'; callId: string; name: string }
  | { kind: 'tool_result'; result: ToolResult }
  /** The run was handed to another worker after its own was lost (counted, so a run that kills its workers is not handed on forever). */
  | { kind: 'resumed' }
  /**
   * A tool call changed too many files, or too many bytes, to checkpoint: from here on the run
   * cannot go on elsewhere. `why` says which, for whoever reads the journal.
   */
  | { kind: 'files_untracked'; why?: string };

/** The host folders of a run whose files are checkpointed: its output, and its computer's /workspace when it has one on the host. */
export interface RunFolders {
  output: string;
  workspace?: string;
}

/**
 * The journal of one agent run (issue 30). A model call's answer is journaled in the same
 * transaction as its charge (RunAccount.charge), so a call is charged exactly when it is
 * journaled; tool calls are journaled here, each result with a checkpoint of the run's files.
 */
export interface RunJournal {
  /** What earlier attempts at this run completed, in order: empty on a first attempt. */
  readonly steps: readonly JournalStep[];
  /** Set when this attempt goes on from an earlier one whose worker was lost: seconds since that one's last journaled step, when it had one. */
  readonly resumedFrom?: { pauseSeconds: number | undefined };
  /** Puts the files of the run's latest checkpoint back into its folders (a resumed run, before it goes on). */
  restore(folders: RunFolders): Promise<void>;
  /** Records a tool call with outside effects as it starts. */
  toolStarted(callId: string, name: string): Promise<void>;
  /** Records a tool call's result, with the folders' files as they stand after it (only new content is stored). */
  toolAnswered(result: ToolResult, folders: RunFolders): Promise<void>;
}
