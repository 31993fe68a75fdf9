import { EventEmitter } from 'node:events';

/**
 * Announces messages on named channels (an execution's events, a workspace's control
 * messages). In one process this is an emitter; across nodes a Redis implementation of the
 * same interface takes its place.
 */
export interface Channels<Message> {
  publish(channel: string, message: Message): void;
  subscribe(channel: string, listener: (message: Message) => void): void;
  /** Takes off a listener given to subscribe (the same function). */
  unsubscribe(channel: string, listener: (message: Message) => void): void;
  /**
   * Resolves once every subscription asked for so far is in effect. Absent where subscribing
   * takes effect at once (in process); across nodes a reader that subscribes and then reads
   * the store must wait for it, or an event announced in between is missed.
   */
  ready?(): Promise<void>;
  /**
   * Calls `listener` each time the subscriptions are back after the connection dropped:
   * whatever was published meanwhile never arrived. Absent where nothing can be missed.
   */
  onReconnect?(listener: () => void): void;
}

/**
 * A stored event as live subscribers get it: enough to keep order, and its frame rendered
 * once for all of them rather than once per subscriber.
 */
export interface AnnouncedEvent {
  sequence: number;
  /** An execution's event type; on a `thread:` channel, a thread record's (threads/thread-frames.ts). */
  type: string;
  frame: string;
}

export type EventBus = Channels<AnnouncedEvent>;

export class InProcessChannels<Message> implements Channels<Message> {
  readonly #emitter = new EventEmitter().setMaxListeners(0);

  publish(channel: string, message: Message): void {
    this.#emitter.emit(channel, message);
  }

  subscribe(channel: string, listener: (message: Message) => void): void {
    this.#emitter.on(channel, listener);
  }

  unsubscribe(channel: string, listener: (message: Message) => void): void {
    this.#emitter.off(channel, listener);
  }
}
