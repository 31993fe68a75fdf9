import { EventEmitter } from 'node:events';
import type { Channels } from '../ports/channels.js';

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
