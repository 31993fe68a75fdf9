import { EventEmitter } from 'node:events';
import type { EventType } from './event-codec.js';

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
}

/**
 * A stored event as live subscribers get it: enough to keep order, and its frame rendered
 * once for all of them rather than once per subscriber.
 */
export interface AnnouncedEvent {
  sequence: number;
  type: EventType;
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
