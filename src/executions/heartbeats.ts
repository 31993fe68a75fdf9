/**
 * One timer for every open event stream's keep-alive comment, instead of a timer each: with
 * tens of thousands of idle subscribers, per-connection timers cost memory and wake-ups.
 * The timer runs only while some stream is open.
 */
export class Heartbeats {
  readonly #streams = new Set<{ write(chunk: string): unknown }>();
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly intervalMs: number) {}

  add(stream: { write(chunk: string): unknown }): () => void {
    this.#streams.add(stream);
    if (!this.#timer) {
      this.#timer = setInterval(() => {
        for (const open of this.#streams) open.write(': keep-alive\n\n');
      }, this.intervalMs);
      this.#timer.unref();
    }
    return () => {
      this.#streams.delete(stream);
      if (this.#streams.size === 0 && this.#timer) {
        clearInterval(this.#timer);
        this.#timer = undefined;
      }
    };
  }
}
