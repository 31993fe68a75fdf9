import type { Turn } from '../models/conversation.js';
import type { StoredThreadRecord, ThreadRecord } from '../ports/thread-records.js';
import { withoutNotificationTags } from './thread-notification-text.js';

/**
 * How much of a thread the model is shown: the newest records, up to a count and a size.
 * About 4 characters make a token, so the character budget keeps a turn's input near 30k
 * tokens before the current turn's own tool calls, whatever model answers.
 */
export const HISTORY_LIMITS = { records: 200, chars: 120_000, recordChars: 16_000 };

const LEFT_OUT = '[Earlier messages of this thread are left out.]';

/** A record's part of the conversation: who says it and what, or nothing. */
function lineOf(record: ThreadRecord): { role: 'user' | 'assistant'; text: string } | undefined {
  switch (record.type) {
    case 'user.message':
      // Only the service's notifications may look like one.
      return { role: 'user', text: withoutNotificationTags(record.text) };
    case 'notification':
      // Stored already wrapped in <notification>…</notification>, its body encoded.
      return { role: 'user', text: record.text };
    case 'agent.message':
      return { role: 'assistant', text: record.text };
    case 'tool.result':
      // Only the summary is stored, so past tool calls are told as text, not replayed as calls.
      return { role: 'assistant', text: `[${record.tool} ${record.status}: ${record.summary}]` };
    default:
      // Chunks repeat their agent.message; approval requests end in a tool.result; turn ends say nothing.
      return undefined;
  }
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n[…cut: ${text.length - max} more characters]` : text;
}

/**
 * The thread's history as the model's conversation: people's messages and notifications as
 * user turns, the agent's replies and tool summaries as assistant turns, consecutive lines
 * of one side joined. The oldest lines are left out past HISTORY_LIMITS (with a note, so the
 * model knows there was more); the conversation always starts with a user turn and ends
 * with one, as both vendors need for a reply.
 */
export function conversationOf(history: readonly StoredThreadRecord[]): Turn[] {
  const lines = history.flatMap((stored) => {
    const line = lineOf(stored.record);
    return line ? [{ ...line, text: cut(line.text, HISTORY_LIMITS.recordChars) }] : [];
  });
  const kept: typeof lines = [];
  let chars = 0;
  for (let i = lines.length - 1; i >= 0 && kept.length < HISTORY_LIMITS.records; i--) {
    const line = lines[i] as (typeof lines)[number];
    if (kept.length > 0 && chars + line.text.length > HISTORY_LIMITS.chars) break;
    kept.unshift(line);
    chars += line.text.length;
  }
  if (kept.length < lines.length) kept.unshift({ role: 'user', text: LEFT_OUT });
  if (kept[0]?.role !== 'user') kept.unshift({ role: 'user', text: '[The thread starts.]' });
  if (kept.at(-1)?.role !== 'user') kept.push({ role: 'user', text: '[Go on.]' });

  const merged: typeof kept = [];
  for (const line of kept) {
    const last = merged.at(-1);
    if (last?.role === line.role) last.text = `${last.text}\n\n${line.text}`;
    else merged.push({ ...line });
  }
  return merged.map(
    (line): Turn =>
      line.role === 'user'
        ? { role: 'user', text: line.text }
        : { role: 'assistant', content: [{ type: 'text', text: line.text }] },
  );
}
