import type { TokenUsage } from '../../language-models.js';
import type { ContentBlock, ToolResult, Turn } from '../../models/conversation.js';
import type { JournalStep } from '../journal-steps.js';

export type ToolCallBlock = Extract<ContentBlock, { type: 'tool_call' }>;

/** The tool calls of a run's latest model answer, and what the journal holds of them. */
export interface PendingTools {
  calls: ToolCallBlock[];
  results: ToolResult[];
  /** Calls with outside effects that started; those without a result may or may not have happened. */
  started: Set<string>;
}

/** Where a run stood after the last step its journal holds. */
export interface Replayed {
  turns: Turn[];
  /** Model calls completed (and charged). */
  modelCalls: number;
  usages: TokenUsage[];
  /** The latest answer's blocks: its words are the run's summary if it was the last. */
  last: ContentBlock[];
  /** Set when the latest answer asked for tools. */
  pending: PendingTools | undefined;
  /** The latest answer asked for none: the run had done its work. */
  finished: boolean;
}

/** Rebuilds a run's conversation from its journal, exactly as the run had it (thinking signatures included). */
export function replayJournal(input: string, steps: readonly JournalStep[]): Replayed {
  const replayed: Replayed = {
    turns: [{ role: 'user', text: input }],
    modelCalls: 0,
    usages: [],
    last: [],
    pending: undefined,
    finished: false,
  };
  for (const step of steps) {
    if (step.kind === 'model_reply') {
      if (replayed.pending) replayed.turns.push({ role: 'tool', results: replayed.pending.results });
      replayed.turns.push({ role: 'assistant', content: step.content });
      replayed.modelCalls += 1;
      replayed.usages.push(step.usage);
      replayed.last = step.content;
      const calls = step.content.filter((block): block is ToolCallBlock => block.type === 'tool_call');
      replayed.pending = calls.length > 0 ? { calls, results: [], started: new Set() } : undefined;
      replayed.finished = calls.length === 0;
    } else if (step.kind === 'tool_started') {
      replayed.pending?.started.add(step.callId);
    } else if (step.kind === 'tool_result') {
      replayed.pending?.results.push(step.result);
    }
  }
  return replayed;
}
