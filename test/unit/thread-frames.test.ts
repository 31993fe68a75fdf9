import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { decodeThreadFrame, encodeThreadFrame, isTurnInput } from '../../src/threads/thread-frames.js';

describe('thread frames', () => {
  const stored = {
    sequence: 7,
    id: 'r7',
    createdAt: '2026-01-01T00:00:00.000Z',
    record: { type: 'agent.message' as const, messageId: 'm1', text: 'two\nlines' },
  };

  it('are one SSE frame: id is the sequence, data the record beside its place, no event line', () => {
    const frame = encodeThreadFrame(stored);
    expect(frame).toBe(
      'id: 7\ndata: {"sequence":7,"id":"r7","createdAt":"2026-01-01T00:00:00.000Z","type":"agent.message","messageId":"m1","text":"two\\nlines"}\n\n',
    );
    expect(decodeThreadFrame(frame)).toEqual(stored);
  });

  it("carry a turn end's `through`", () => {
    const end = { ...stored, record: { type: 'agent.turn_end' as const, messageId: 'm1', stopReason: 'end_turn' as const } };
    expect(decodeThreadFrame(encodeThreadFrame(end, 5))).toEqual({ ...end, through: 5 });
  });

  it('count messages and notifications as what asks for a turn', () => {
    expect(isTurnInput({ type: 'user.message', messageId: 'm', text: 'x' })).toBe(true);
    expect(isTurnInput({ type: 'notification', text: '<notification>x</notification>' })).toBe(true);
    expect(isTurnInput(stored.record)).toBe(false);
  });
});

describe('ManualClock timers', () => {
  it('fire as time is moved, as often as they fall due, with now() at their due time, until stopped', () => {
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const fired: string[] = [];
    const stop = clock.every(25_000, () => fired.push(`a ${clock.now().toISOString()}`));
    clock.every(40_000, () => fired.push(`b ${clock.now().toISOString()}`));
    clock.advance(24_999);
    expect(fired).toEqual([]);
    clock.advance(60_001);
    expect(fired).toEqual([
      'a 2026-01-01T00:00:25.000Z',
      'b 2026-01-01T00:00:40.000Z',
      'a 2026-01-01T00:00:50.000Z',
      'a 2026-01-01T00:01:15.000Z',
      'b 2026-01-01T00:01:20.000Z',
    ]);
    expect(clock.now().toISOString()).toBe('2026-01-01T00:01:25.000Z');
    stop();
    clock.advance(25_000);
    expect(fired.filter((line) => line.startsWith('a'))).toHaveLength(3);
  });
});
