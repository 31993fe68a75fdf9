import type { FastifyBaseLogger } from 'fastify';
import type {
  AfterCommit,
  ClosingListener,
  ClosingWork,
  RunEndName,
  RunLife,
  RunLifeEvents,
  RunLifeListener,
  RunLifeName,
} from '../ports/run-life.js';

type Listeners = { [N in RunLifeName]?: RunLifeListener<N>[] };
type ClosingListeners = { [N in RunEndName]?: ClosingListener<N>[] };

/** The run's life events of one node, told in process (each node tells of the runs it starts and ends). */
export class RunLifeBus implements RunLife {
  readonly #listeners: Listeners = {};
  readonly #closing: ClosingListeners = {};

  constructor(private readonly log: Pick<FastifyBaseLogger, 'error'>) {}

  on<N extends RunLifeName>(name: N, listener: RunLifeListener<N>): void {
    const listeners: RunLifeListener<N>[] = this.#listeners[name] ?? [];
    listeners.push(listener);
    (this.#listeners as Record<N, RunLifeListener<N>[]>)[name] = listeners;
  }

  within<N extends RunEndName>(name: N, listener: ClosingListener<N>): void {
    const listeners: ClosingListener<N>[] = this.#closing[name] ?? [];
    listeners.push(listener);
    (this.#closing as Record<N, ClosingListener<N>[]>)[name] = listeners;
  }

  async emit<N extends RunLifeName>(name: N, event: RunLifeEvents[N]): Promise<void> {
    const listeners: RunLifeListener<N>[] | undefined = this.#listeners[name];
    if (!listeners) return;
    for (const listener of listeners) {
      try {
        await listener(event);
      } catch (error) {
        this.log.error({ err: error, executionId: event.executionId, event: name }, `a listener of ${name} failed`);
      }
    }
  }

  closingWork<N extends RunEndName>(name: N, event: RunLifeEvents[N]): ClosingWork | undefined {
    const listeners: ClosingListener<N>[] | undefined = this.#closing[name];
    if (!listeners) return undefined;
    return async (trx, facts) => {
      const after: AfterCommit[] = [];
      // A throw here rolls the closing transaction back, as a failed write of its own would.
      for (const listener of listeners) {
        const then = await listener(trx, { ...event, ...facts });
        if (then) after.push(then);
      }
      return after;
    };
  }
}
