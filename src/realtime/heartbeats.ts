import type { Clock } from '../clock.js';
import type { Beating, HeartbeatRegistry } from '../ports/streams.js';

/**
 * One timer per node for every open stream's heartbeat, on the injected clock, running
 * only while one is open (the thread streams' 25 s comment, apart from the registry's keep-alive).
 */
export class Heartbeats implements HeartbeatRegistry {
  readonly #streams = new Set<Beating>();
  #stop: (() => void) | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly everyMs: number,
  ) {}

  add(stream: Beating): void {
    this.#streams.add(stream);
    this.#stop ??= this.clock.every(this.everyMs, () => {
      for (const open of this.#streams) open.heartbeat();
    });
  }

  delete(stream: Beating): void {
    this.#streams.delete(stream);
    if (this.#streams.size === 0 && this.#stop) {
      this.#stop();
      this.#stop = undefined;
    }
  }
}
