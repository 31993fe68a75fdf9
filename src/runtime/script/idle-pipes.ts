/**
 * How long the pipes may stay open with nothing to read after the skill's process exited. A
 * sandbox process that outlived a kill (bubblewrap's inner init, orphaned when its monitor
 * died at the wrong moment) would otherwise hold them open, and the run would never end.
 */
const PIPE_GRACE_MS = 1000;

/**
 * Cuts a finished skill's pipes once they have stayed open past the grace with the relay
 * waiting for a line that does not come. Never while the relay is busy: a skill that
 * printed fast and exited leaves a backlog that is stored line by line, and under load that
 * takes longer than any fixed grace; cutting it would drop the run's last messages.
 */
export class IdlePipes {
  #waiting = false;
  #progressAt = Date.now();
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(private readonly cut: () => void) {}

  /** The same lines, noting when the relay waits for the next one and when it has it. */
  async *lines(source: AsyncGenerator<string>): AsyncGenerator<string> {
    try {
      for (;;) {
        this.#mark(true);
        const next = await source.next();
        this.#mark(false);
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await source.return(undefined);
    }
  }

  #mark(waiting: boolean): void {
    this.#waiting = waiting;
    this.#progressAt = Date.now();
  }

  /** From the skill's exit on, checks a few times per grace whether the pipes went idle. */
  watch(): void {
    // The relay may be over before the process's exit is heard: a watch started then would
    // never be stopped, and would hold the run's process and buffers for good.
    if (this.#stopped) return;
    this.#progressAt = Date.now();
    this.#timer ??= setInterval(() => {
      if (!this.#waiting || Date.now() - this.#progressAt < PIPE_GRACE_MS) return;
      this.stop();
      this.cut();
    }, PIPE_GRACE_MS / 4);
    this.#timer.unref();
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
  }
}
