import { Redis } from 'ioredis';
import type { Channels } from '../ports/channels.js';

type Listener<Message> = (message: Message) => void;

/** The part of a logger this needs; pino's and Fastify's fit. */
export interface ChannelsLog {
  warn(details: object, message: string): void;
}

export interface RedisChannelsOptions {
  /** Put before every channel name in Redis, so that apps, or kinds of channel, sharing one server keep apart. */
  prefix?: string;
  /** Where failures go that no caller can be told about, since publish and subscribe return nothing. */
  log: ChannelsLog;
}

/** Two connections: under RESP2 a subscribed connection can do nothing else, and each reconnects on its own. */
export interface RedisConnections {
  publisher: Redis;
  /** Must keep ioredis's `autoResubscribe` (its default) on, or a reconnect silently ends every subscription. */
  subscriber: Redis;
}

export const DEFAULT_CHANNEL_PREFIX = 'skillet:';

/**
 * Channels across nodes, over Redis pub/sub: what one node publishes reaches the listeners of
 * every node, its own included, exactly once and, per channel and publishing node, in order
 * (one publisher connection, one subscriber connection). Its own messages come back through
 * Redis rather than being handed over locally, so a listener cannot tell a local publish
 * from a remote one and never sees one twice.
 *
 * Every local listener of a channel shares one Redis subscription: SUBSCRIBE goes out for
 * the first, UNSUBSCRIBE after the last, and a message is decoded once and the same object
 * handed to each. Subscribing the same function twice to one channel counts once.
 *
 * Messages are JSON: plain data only (a Date arrives as its ISO string).
 *
 * When the connection drops: ioredis reconnects and re-subscribes (autoResubscribe). A
 * publish never throws into its caller: while the publisher is down, ioredis queues the
 * command and sends it on reconnect, in order; if reconnecting takes longer than the
 * connection's `maxRetriesPerRequest` attempts (20 by default, over a minute), the queued
 * messages are dropped and logged. A PUBLISH in flight when the socket died is sent again,
 * so it can, rarely, arrive twice. Messages published while a node's subscriber is down
 * never reach that node: Redis pub/sub keeps nothing. Whoever needs every message reads
 * the truth from the store (event streams fill a gap from the database; credential caches
 * fall back on their TTL).
 */
export class RedisChannels<Message> implements Channels<Message> {
  readonly #publisher: Redis;
  readonly #subscriber: Redis;
  readonly #prefix: string;
  readonly #log: ChannelsLog;
  readonly #listeners = new Map<string, Set<Listener<Message>>>();
  /** SUBSCRIBE and UNSUBSCRIBE commands that Redis has not answered yet (see ready()). */
  readonly #pending = new Set<Promise<void>>();
  #closing: Promise<void> | undefined;
  readonly #reconnectListeners = new Set<() => void>();
  #connectedBefore = false;

  /**
   * Opens both connections to `url` and owns them. The subscriber waits out any outage
   * (`maxRetriesPerRequest: null`) so that a SUBSCRIBE sent while Redis is away is sent
   * once it is back rather than failing and leaving the channel deaf; the publisher keeps
   * ioredis's default, so an outage cannot hold published messages forever.
   */
  static fromUrl<Message>(url: string, options: RedisChannelsOptions): RedisChannels<Message> {
    const prefix = options.prefix ?? DEFAULT_CHANNEL_PREFIX;
    return new RedisChannels<Message>(
      {
        publisher: new Redis(url, { connectionName: `${prefix}publisher` }),
        subscriber: new Redis(url, { connectionName: `${prefix}subscriber`, maxRetriesPerRequest: null, autoResubscribe: true }),
      },
      options,
    );
  }

  /** Takes over both connections: close() ends them. */
  constructor(connections: RedisConnections, options: RedisChannelsOptions) {
    this.#publisher = connections.publisher;
    this.#subscriber = connections.subscriber;
    this.#prefix = options.prefix ?? DEFAULT_CHANNEL_PREFIX;
    this.#log = options.log;
    // Without an error listener ioredis prints every failed reconnect attempt to the console.
    this.#publisher.on('error', (error: Error) => this.#log.warn({ err: error }, 'redis channels: publisher connection'));
    this.#subscriber.on('error', (error: Error) => this.#log.warn({ err: error }, 'redis channels: subscriber connection'));
    this.#subscriber.on('message', this.#deliver);
    this.#subscriber.on('ready', this.#resubscribed);
  }

  onReconnect(listener: () => void): void {
    this.#reconnectListeners.add(listener);
  }

  publish(channel: string, message: Message): void {
    if (this.#closing) return;
    this.#publisher.publish(this.#prefix + channel, JSON.stringify(message)).catch((error: unknown) => {
      this.#log.warn({ err: error, channel }, 'redis channels: a message was not published');
    });
  }

  subscribe(channel: string, listener: Listener<Message>): void {
    if (this.#closing) return;
    const listeners = this.#listeners.get(channel);
    if (listeners) {
      listeners.add(listener);
      return;
    }
    this.#listeners.set(channel, new Set([listener]));
    this.#track(this.#subscriber.subscribe(this.#prefix + channel), channel);
  }

  unsubscribe(channel: string, listener: Listener<Message>): void {
    const listeners = this.#listeners.get(channel);
    if (!listeners?.delete(listener) || listeners.size > 0) return;
    this.#listeners.delete(channel);
    if (!this.#closing) this.#track(this.#subscriber.unsubscribe(this.#prefix + channel), channel);
  }

  /**
   * Settles once Redis has answered every SUBSCRIBE and UNSUBSCRIBE sent so far: from then
   * on a message published anywhere reaches the listeners subscribed before the call.
   * subscribe() cannot say so itself, the Channels interface being synchronous.
   */
  async ready(): Promise<void> {
    // After close() a command queued for a reconnect that will not come never settles.
    if (this.#closing) return;
    await Promise.all(this.#pending);
  }

  /**
   * Ends both connections: gracefully (after what was already sent) when they are up, at
   * once when they are not, since QUIT would otherwise wait in the offline queue for a
   * server that may not come back. Afterwards publish and subscribe do nothing.
   */
  close(): Promise<void> {
    this.#closing ??= Promise.all([end(this.#publisher), end(this.#subscriber)]).then(() => this.#listeners.clear());
    return this.#closing;
  }

  readonly #deliver = (prefixedChannel: string, payload: string): void => {
    // A subscriber connection handed in may also carry someone else's channels: not ours to decode.
    if (!prefixedChannel.startsWith(this.#prefix)) return;
    const channel = prefixedChannel.slice(this.#prefix.length);
    // None when the last listener left while its UNSUBSCRIBE was on the way.
    const listeners = this.#listeners.get(channel);
    if (!listeners) return;
    let message: Message;
    try {
      message = JSON.parse(payload) as Message;
    } catch (error) {
      this.#log.warn({ err: error, channel }, 'redis channels: a message that is not JSON was dropped');
      return;
    }
    // A copy, since listeners come and go during delivery; one that left before its turn is skipped.
    for (const listener of [...listeners]) {
      if (!listeners.has(listener)) continue;
      try {
        listener(message);
      } catch (error) {
        this.#log.warn({ err: error, channel }, 'redis channels: a listener failed');
      }
    }
  };

  /**
   * ioredis sends the SUBSCRIBEs again right after 'ready'; a PING queued behind them
   * answers once they are in effect, and only then is it worth reading the store.
   */
  readonly #resubscribed = (): void => {
    if (!this.#connectedBefore) {
      this.#connectedBefore = true;
      return;
    }
    setImmediate(() => {
      this.#subscriber.ping().then(
        () => {
          for (const listener of this.#reconnectListeners) listener();
        },
        (error: unknown) => this.#log.warn({ err: error }, 'redis channels: no answer after reconnecting'),
      );
    });
  };

  #track(command: Promise<unknown>, channel: string): void {
    const settled: Promise<void> = command
      .then(
        () => undefined,
        (error: unknown) => this.#log.warn({ err: error, channel }, 'redis channels: a subscription change failed'),
      )
      .finally(() => this.#pending.delete(settled));
    this.#pending.add(settled);
  }
}

function end(connection: Redis): Promise<void> {
  switch (connection.status) {
    case 'end':
      return Promise.resolve();
    case 'ready': {
      const done = ended(connection);
      connection.quit().catch(() => connection.disconnect());
      return done;
    }
    case 'reconnecting':
      // Between attempts there is no socket, so no 'end' follows: cancelling the next attempt is all.
      connection.disconnect();
      return Promise.resolve();
    default:
      connection.disconnect();
      return ended(connection);
  }
}

/** 'end' comes once the socket is closed and no reconnect will follow. */
function ended(connection: Redis): Promise<void> {
  return new Promise((resolve) => connection.once('end', () => resolve()));
}
