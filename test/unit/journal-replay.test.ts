import { describe, expect, it } from 'vitest';
import { replayJournal } from '../../src/runtime/agent/journal-replay.js';
import type { JournalStep } from '../../src/runtime/journal-steps.js';

const usage = { input_tokens: 10, output_tokens: 5 };
const thinking = { type: 'thinking' as const, thinking: 'Plan.', signature: 'signed-1' };
const call = (id: string, name = 'bash') => ({ type: 'tool_call' as const, id, name, input: { command: 'ls' } });
const reply = (...content: Extract<JournalStep, { kind: 'model_reply' }>['content']): JournalStep => ({
  kind: 'model_reply',
  content,
  usage,
});
const result = (callId: string, output: string): JournalStep => ({
  kind: 'tool_result',
  result: { callId, name: 'bash', output, isError: false },
});

describe('replayJournal', () => {
  it('starts a run with no journal from its input alone', () => {
    expect(replayJournal('Do it.', [])).toEqual({
      turns: [{ role: 'user', text: 'Do it.' }],
      modelCalls: 0,
      usages: [],
      last: [],
      pending: undefined,
      finished: false,
    });
  });

  it("rebuilds the conversation exactly, thinking signatures included, and leaves the last answer's calls pending", () => {
    const steps = [
      reply(thinking, call('a')),
      result('a', 'one'),
      reply({ type: 'text', text: 'Next.' }, call('b'), call('c')),
      result('b', 'two'),
    ];
    const replayed = replayJournal('Do it.', steps);
    expect(replayed.turns).toEqual([
      { role: 'user', text: 'Do it.' },
      { role: 'assistant', content: [thinking, call('a')] },
      { role: 'tool', results: [{ callId: 'a', name: 'bash', output: 'one', isError: false }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Next.' }, call('b'), call('c')] },
    ]);
    expect(replayed.modelCalls).toBe(2);
    expect(replayed.usages).toEqual([usage, usage]);
    expect(replayed.pending?.calls.map((block) => block.id)).toEqual(['b', 'c']);
    expect(replayed.pending?.results.map((done) => done.callId)).toEqual(['b']);
    expect(replayed.finished).toBe(false);
  });

  it('knows a call with outside effects that started and never answered', () => {
    const replayed = replayJournal('Fetch.', [
      reply(call('f', 'web_fetch')),
      { kind: 'tool_started', callId: 'f', name: 'web_fetch' },
    ]);
    expect([...(replayed.pending?.started ?? [])]).toEqual(['f']);
    expect(replayed.pending?.results).toEqual([]);
  });

  it('sees a run whose last answer asked for no tool as done, and skips hand-over marks', () => {
    const replayed = replayJournal('Do it.', [
      reply(call('a')),
      { kind: 'resumed' },
      result('a', 'one'),
      reply({ type: 'text', text: 'Done.' }),
      { kind: 'resumed' },
    ]);
    expect(replayed.finished).toBe(true);
    expect(replayed.pending).toBeUndefined();
    expect(replayed.last).toEqual([{ type: 'text', text: 'Done.' }]);
    expect(replayed.turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });
});
