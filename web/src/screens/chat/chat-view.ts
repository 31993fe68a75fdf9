import { notificationWords } from '../../../../src/sdk/thread-notifications.js';
import type { ThreadRecord } from '../../../../src/sdk/thread-types.js';

/** One thing the chat shows, made from the thread's records. */
export type ChatItem =
  | { kind: 'user'; key: string; text: string; at: string }
  | { kind: 'assistant'; key: string; text: string; at: string; streaming: boolean }
  | { kind: 'approval'; key: string; approvalId: string; label: string; waiting: boolean }
  | { kind: 'result'; key: string; words: string; status: 'ok' | 'denied' | 'error'; executionId: string | undefined }
  | { kind: 'notice'; key: string; words: string; executionId: string | undefined }
  | { kind: 'stopped'; key: string; reason: string };

export interface ChatView {
  items: ChatItem[];
  /** A message is waiting for its answer: the assistant is at work. */
  answering: boolean;
  /** The assistant waits for the person to allow or refuse something. */
  asking: boolean;
}

/**
 * A tool result as a person reads it. The summary is also what later turns of the model are
 * told (thread-history.ts), so a started run's id stays in it; here it becomes a link.
 */
export function resultWords(record: { tool: string; status: 'ok' | 'denied' | 'error'; summary: string }): {
  words: string;
  executionId: string | undefined;
} {
  if (record.status === 'denied')
    return { words: `Not allowed: ${record.summary.replace(/^Denied: /, '')}`, executionId: undefined };
  if (record.status === 'error') return { words: `It failed: ${record.summary}`, executionId: undefined };
  const started = /^Started (\S+): execution (\S+)$/.exec(record.summary);
  if (started) return { words: `Started ${started[1]}.`, executionId: started[2] };
  return { words: `Done: ${record.summary}`, executionId: undefined };
}

/**
 * The chat as a list of things to show. Chunks build up a reply until its whole message
 * arrives; an approval waits until a tool result or its turn's end follows it; a message
 * is answered once a turn's end has seen it (`through`).
 */
export function chatViewOf(records: ThreadRecord[]): ChatView {
  const items: ChatItem[] = [];
  const replies = new Map<string, Extract<ChatItem, { kind: 'assistant' }>>();
  let waiting: Extract<ChatItem, { kind: 'approval' }> | undefined;
  let lastMessage = 0;
  let answeredThrough = 0;
  for (const record of records) {
    const key = String(record.sequence);
    switch (record.type) {
      case 'user.message':
        items.push({ kind: 'user', key, text: record.text, at: record.createdAt });
        lastMessage = record.sequence;
        break;
      case 'agent.chunk': {
        const reply = replies.get(record.messageId);
        if (reply) reply.text += record.text;
        else {
          const started = { kind: 'assistant' as const, key, text: record.text, at: record.createdAt, streaming: true };
          replies.set(record.messageId, started);
          items.push(started);
        }
        break;
      }
      case 'agent.message': {
        const reply = replies.get(record.messageId);
        if (reply) Object.assign(reply, { text: record.text, streaming: false });
        else items.push({ kind: 'assistant', key, text: record.text, at: record.createdAt, streaming: false });
        break;
      }
      case 'tool.approval_request':
        waiting = { kind: 'approval', key, approvalId: record.approvalId, label: record.label, waiting: true };
        items.push(waiting);
        break;
      case 'tool.result':
        if (waiting) waiting.waiting = false;
        waiting = undefined;
        items.push({ kind: 'result', key, status: record.status, ...resultWords(record) });
        break;
      case 'notification':
        items.push({ kind: 'notice', key, words: notificationWords(record.text), executionId: record.executionId });
        break;
      case 'agent.turn_end':
        if (waiting) waiting.waiting = false;
        waiting = undefined;
        for (const reply of replies.values()) reply.streaming = false;
        answeredThrough = Math.max(answeredThrough, record.through ?? record.sequence);
        if (record.stopReason !== 'end_turn') {
          const reason = record.reason ?? (record.stopReason === 'limit_reached' ? 'It reached its limit for one answer.' : '');
          items.push({ kind: 'stopped', key, reason });
        }
        break;
    }
  }
  return { items, answering: lastMessage > answeredThrough, asking: waiting !== undefined };
}
