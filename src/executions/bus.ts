import { EventEmitter } from 'node:events';

/** An execution event as clients see it: on the stream and in POST /events answers. */
export interface ExecutionEvent {
  id: string;
  type: string;
  sequence: number;
  payload: Record<string, unknown>;
}

/**
 * Announces events once they are stored. In one process this is an emitter; across nodes
 * a Redis implementation of the same interface takes its place.
 */
export interface EventBus {
  publish(executionId: string, event: ExecutionEvent): void;
  /** Returns the function that unsubscribes. */
  subscribe(executionId: string, listener: (event: ExecutionEvent) => void): () => void;
}

export class InProcessBus implements EventBus {
  readonly #emitter = new EventEmitter().setMaxListeners(0);

  publish(executionId: string, event: ExecutionEvent): void {
    this.#emitter.emit(executionId, event);
  }

  subscribe(executionId: string, listener: (event: ExecutionEvent) => void): () => void {
    this.#emitter.on(executionId, listener);
    return () => this.#emitter.off(executionId, listener);
  }
}
