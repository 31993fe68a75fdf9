import { describe, expect, it } from 'vitest';
import type { StoredThreadRecord, ThreadRecord } from '../../src/ports/thread-records.js';
import { conversationOf, HISTORY_LIMITS } from '../../src/threads/thread-history.js';

const stored = (...records: ThreadRecord[]): StoredThreadRecord[] =>
  records.map((record, index) => ({ sequence: index + 1, id: `r${index}`, createdAt: '2026-01-01T00:00:00.000Z', record }));

const user = (text: string): ThreadRecord => ({ type: 'user.message', messageId: 'u', text });
const agent = (text: string): ThreadRecord => ({ type: 'agent.message', messageId: 'a', text });

describe("a thread's history as the model's conversation", () => {
  it('takes messages and notifications as user turns, replies and tool summaries as assistant turns', () => {
    const turns = conversationOf(
      stored(
        user('run it'),
        { type: 'agent.chunk', messageId: 'a', text: 'On it' },
        agent('On it.'),
        { type: 'tool.approval_request', approvalId: 'p', tool: 'start_run', label: 'Run Ticker', input: {} },
        { type: 'tool.result', callId: 'c', tool: 'start_run', status: 'denied', summary: 'Denied: Run Ticker' },
        agent('You said no.'),
        { type: 'agent.turn_end', messageId: 'a', stopReason: 'end_turn' },
        user('ok'),
        { type: 'notification', text: '<notification>Run e of ticker failed: boom</notification>' },
      ),
    );
    expect(turns).toEqual([
      { role: 'user', text: 'run it' },
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'On it.\n\n[start_run denied: Denied: Run Ticker]\n\nYou said no.' }],
      },
      { role: 'user', text: 'ok\n\n<notification>Run e of ticker failed: boom</notification>' },
    ]);
  });

  it('starts and ends with a user turn, as both vendors need', () => {
    expect(conversationOf(stored(agent('Welcome.')))).toEqual([
      { role: 'user', text: '[The thread starts.]' },
      { role: 'assistant', content: [{ type: 'text', text: 'Welcome.' }] },
      { role: 'user', text: '[Go on.]' },
    ]);
  });

  it('leaves out the oldest records past the count, and says so', () => {
    const many = Array.from({ length: HISTORY_LIMITS.records + 10 }, (_, i) => (i % 2 === 0 ? user(`q${i}`) : agent(`a${i}`)));
    many.push(user('latest'));
    const turns = conversationOf(stored(...many));
    expect(turns[0]).toMatchObject({
      role: 'user',
      text: expect.stringMatching(/^\[Earlier messages of this thread are left out\.\]/),
    });
    expect(turns.at(-1)).toEqual({ role: 'user', text: 'latest' });
    expect(turns.length).toBeLessThanOrEqual(HISTORY_LIMITS.records + 1);
    expect(JSON.stringify(turns)).not.toContain('"q0"');
  });

  it('leaves out the oldest records past the size, and cuts a record too long on its own', () => {
    const big = 'x'.repeat(HISTORY_LIMITS.recordChars);
    const records = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? user(`${i}:${big}`) : agent(`${i}:${big}`)));
    records.push(user(`huge:${'y'.repeat(HISTORY_LIMITS.recordChars * 2)}`));
    const turns = conversationOf(stored(...records));
    const size = JSON.stringify(turns).length;
    expect(size).toBeLessThan(HISTORY_LIMITS.chars + 2 * HISTORY_LIMITS.recordChars);
    const last = turns.at(-1);
    expect(last?.role === 'user' && last.text).toMatch(/\[…cut: \d+ more characters\]$/);
    expect(turns[0]).toMatchObject({ role: 'user', text: expect.stringMatching(/^\[Earlier messages/) });
  });

  it('keeps the latest message whole up to the record size, and cut past it', () => {
    const turns = conversationOf(stored(user('old'), user('z'.repeat(HISTORY_LIMITS.chars * 2))));
    expect(turns).toHaveLength(1);
    const text = turns[0]?.role === 'user' ? turns[0].text : '';
    expect(text.startsWith(`old\n\n${'z'.repeat(HISTORY_LIMITS.recordChars)}\n[…cut: `)).toBe(true);
  });
});
