import { describe, expect, it } from 'vitest';
import { notificationWords } from '../../src/sdk/thread-notifications.js';
import type { ThreadRecord } from '../../src/sdk/thread-types.js';
import { chatViewOf, resultWords } from '../../web/src/screens/chat/chat-view.js';

type Body = ThreadRecord extends infer R ? (R extends ThreadRecord ? Omit<R, 'sequence' | 'id' | 'createdAt'> : never) : never;

/** Records in order, numbered from 1 as a thread stores them. */
const thread = (...bodies: Body[]): ThreadRecord[] =>
  bodies.map(
    (body, index) =>
      ({ ...body, sequence: index + 1, id: `r${index + 1}`, createdAt: '2026-11-28T00:00:00.000Z' }) as ThreadRecord,
  );

describe('the chat view of a thread', () => {
  it('builds a reply from its chunks, and the whole message replaces them', () => {
    const streaming = chatViewOf(
      thread(
        { type: 'user.message', messageId: 'm1', text: 'Hi' },
        { type: 'agent.chunk', messageId: 'a1', text: 'Hel' },
        { type: 'agent.chunk', messageId: 'a1', text: 'lo' },
      ),
    );
    expect(streaming.items.map((item) => item.kind)).toEqual(['user', 'assistant']);
    expect(streaming.items[1]).toMatchObject({ text: 'Hello', streaming: true });
    expect(streaming).toMatchObject({ answering: true, asking: false });

    const whole = chatViewOf(
      thread(
        { type: 'user.message', messageId: 'm1', text: 'Hi' },
        { type: 'agent.chunk', messageId: 'a1', text: 'Hel' },
        { type: 'agent.message', messageId: 'a1', text: 'Hello there' },
        { type: 'agent.turn_end', messageId: 'a1', stopReason: 'end_turn', through: 1 },
      ),
    );
    expect(whole.items).toHaveLength(2);
    expect(whole.items[1]).toMatchObject({ text: 'Hello there', streaming: false });
    expect(whole.answering).toBe(false);
  });

  it('keeps an approval waiting until its result, and a message sent during a turn unanswered until a later turn', () => {
    const asking: Body[] = [
      { type: 'user.message', messageId: 'm1', text: 'Run it' },
      { type: 'tool.approval_request', approvalId: 'p1', tool: 'start_run', label: 'Run Ticker: 1 10', input: {} },
    ];
    const asked = chatViewOf(thread(...asking));
    expect(asked.items[1]).toMatchObject({ kind: 'approval', waiting: true });
    expect(asked).toMatchObject({ asking: true, answering: true });

    const answered = chatViewOf(
      thread(
        ...asking,
        { type: 'user.message', messageId: 'm2', text: 'and hurry' },
        { type: 'tool.result', callId: 'c1', tool: 'start_run', status: 'ok', summary: 'Started ticker: execution e-1' },
        { type: 'agent.turn_end', messageId: 'a1', stopReason: 'end_turn', through: 2 },
      ),
    );
    expect(answered.items[1]).toMatchObject({ kind: 'approval', waiting: false });
    expect(answered.items.find((item) => item.kind === 'result')).toMatchObject({ words: 'Started ticker.', executionId: 'e-1' });
    // "and hurry" (sequence 3) came after what the turn had seen (through 2).
    expect(answered).toMatchObject({ asking: false, answering: true });
  });

  it('says what a turn that stopped short ran into', () => {
    const view = chatViewOf(
      thread(
        { type: 'user.message', messageId: 'm1', text: 'Hi' },
        { type: 'agent.turn_end', messageId: 'a1', stopReason: 'error', reason: 'No model key is set up.', through: 1 },
      ),
    );
    expect(view.items[1]).toEqual({ kind: 'stopped', key: '2', reason: 'No model key is set up.' });
    expect(view.answering).toBe(false);
  });
});

describe('words of the records', () => {
  it('reads a notification without its wrapper, its entities or its run id', () => {
    expect(notificationWords('<notification>Run 1b2c of ticker completed: 2 ticks &lt;fast&gt; &amp; done</notification>')).toBe(
      'The ticker run finished: 2 ticks <fast> & done',
    );
    expect(notificationWords('<notification>Run 1b2c of pdf failed: out of memory</notification>')).toBe(
      'The pdf run failed: out of memory',
    );
    expect(notificationWords('<notification>Something else</notification>')).toBe('Something else');
  });

  it('reads a refused and a failed tool call', () => {
    expect(resultWords({ tool: 'start_run', status: 'denied', summary: 'Denied: Run Ticker: 1 10' }).words).toBe(
      'Not allowed: Run Ticker: 1 10',
    );
    expect(resultWords({ tool: 'read_artifact', status: 'error', summary: 'No such artifact' })).toEqual({
      words: 'It failed: No such artifact',
      executionId: undefined,
    });
  });
});
