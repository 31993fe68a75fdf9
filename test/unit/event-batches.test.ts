import { describe, expect, it } from 'vitest';
import { BatchedEventWriter } from '../../src/runs/event-batches.js';
import type { NewEvent } from '../../src/runs/event-codec.js';

const info = (n: number): NewEvent => ({ type: 'agent.info', payload: { message: `line ${n}` } });
const numbers = (events: NewEvent[]) => events.map((event) => (event.payload as { message: string }).message);

/** A write that finishes only when told, recording each batch it was given. */
function heldWrites() {
  const batches: string[][] = [];
  const finish: ((error?: Error) => void)[] = [];
  const write = (events: NewEvent[]) =>
    new Promise<void>((resolve, reject) => {
      batches.push(numbers(events));
      finish.push((error) => (error ? reject(error) : resolve()));
    });
  return { batches, finish, write };
}

describe('storing a run’s events in batches', () => {
  it('writes the events handed in together in one write, and joins those that arrive during a write into the next, in order', async () => {
    const held = heldWrites();
    const writer = new BatchedEventWriter(held.write);
    const first = [1, 2].map((n) => writer.add(info(n)));
    expect(held.batches).toEqual([]);
    await Promise.resolve();
    expect(held.batches).toEqual([['line 1', 'line 2']]);
    const rest = [3, 4].map((n) => writer.add(info(n)));
    await Promise.resolve();
    rest.push(writer.add(info(5)));
    expect(held.batches).toHaveLength(1);
    held.finish[0]?.();
    await Promise.all(first);
    await expect.poll(() => held.batches.length).toBe(2);
    expect(held.batches[1]).toEqual(['line 3', 'line 4', 'line 5']);
    held.finish[1]?.();
    await Promise.all(rest);
  });

  it('writes a lone event within the same turn of the event loop, without waiting for a timer', async () => {
    const held = heldWrites();
    const writer = new BatchedEventWriter(held.write);
    const lone = writer.add(info(1));
    await Promise.resolve();
    expect(held.batches).toEqual([['line 1']]);
    held.finish[0]?.();
    await lone;
  });

  it('settles each event only when the write holding it has committed', async () => {
    const held = heldWrites();
    const writer = new BatchedEventWriter(held.write);
    let stored = false;
    const added = writer.add(info(1)).then(() => {
      stored = true;
    });
    await expect.poll(() => held.batches.length).toBe(1);
    expect(stored).toBe(false);
    held.finish[0]?.();
    await added;
    expect(stored).toBe(true);
  });

  it('fails the events of a failed write, and still writes the ones after it', async () => {
    const held = heldWrites();
    const writer = new BatchedEventWriter(held.write);
    const first = writer.add(info(1));
    await expect.poll(() => held.batches.length).toBe(1);
    const second = writer.add(info(2));
    held.finish[0]?.(new Error('the database refused it'));
    await expect(first).rejects.toThrow('the database refused it');
    await expect.poll(() => held.batches.length).toBe(2);
    held.finish[1]?.();
    await expect(second).resolves.toBeUndefined();
  });

  it('holds an event back until what it waits for is done, and fails it if that fails', async () => {
    const held = heldWrites();
    const writer = new BatchedEventWriter(held.write);
    let created: () => void = () => undefined;
    const artifact = new Promise<void>((resolve) => {
      created = resolve;
    });
    const waiting = writer.add(info(1), artifact);
    await Promise.resolve();
    expect(held.batches).toEqual([]);
    created();
    await expect.poll(() => held.batches.length).toBe(1);
    held.finish[0]?.();
    await waiting;

    const refused = writer.add(info(2), Promise.reject(new Error('the artifact could not be created')));
    await expect(refused).rejects.toThrow('the artifact could not be created');
    expect(held.batches).toHaveLength(1);
  });

  it('never writes more than 256 events at once', async () => {
    const held = heldWrites();
    const writer = new BatchedEventWriter(held.write);
    const all = Array.from({ length: 600 }, (_, n) => writer.add(info(n)));
    await expect.poll(() => held.batches.length).toBe(1);
    held.finish[0]?.();
    await expect.poll(() => held.batches.length).toBe(2);
    held.finish[1]?.();
    await expect.poll(() => held.batches.length).toBe(3);
    held.finish[2]?.();
    await Promise.all(all);
    expect(held.batches.map((batch) => batch.length)).toEqual([256, 256, 88]);
    expect(held.batches.flat()).toEqual(Array.from({ length: 600 }, (_, n) => `line ${n}`));
  });
});
