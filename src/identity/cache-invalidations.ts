import { randomUUID } from 'node:crypto';
import type { Channels } from '../ports/channels.js';
import { CredentialCache } from './credential-cache.js';

/** One forget, as every node hears it. */
export interface CredentialInvalidation {
  /** `credential`: forget(id), a key or token revoked; `user`: forgetUser(id), a user's standing changed. */
  kind: 'credential' | 'user';
  id: string;
  /** The node that forgot it first, and so has applied it already. */
  node: string;
}

export const INVALIDATIONS_CHANNEL = 'credential-cache';

export interface SharedCredentialCacheOptions {
  maxEntries?: number;
  /** Names this node in its messages; a random id unless given (a log is easier to read with a host name). */
  nodeId?: string;
  channel?: string;
}

/**
 * A credential cache whose forgets reach every node: each one is applied here at once, as
 * before, and published, and the ones other nodes publish are applied here. Without it a
 * revoked key keeps working on the other nodes until their entries' TTL runs out.
 *
 * Delivery is as good as the channels': on Redis, a node whose connection was down when
 * a forget went out misses it and keeps that entry until its TTL, as every node did before.
 * A message can only ever drop entries, so a forged or repeated one costs a database
 * lookup, never access.
 */
export class SharedCredentialCache extends CredentialCache {
  readonly #channels: Channels<CredentialInvalidation>;
  readonly #channel: string;
  readonly #node: string;

  constructor(ttlMs: number, channels: Channels<CredentialInvalidation>, options: SharedCredentialCacheOptions = {}) {
    super(ttlMs, options.maxEntries);
    this.#channels = channels;
    this.#channel = options.channel ?? INVALIDATIONS_CHANNEL;
    this.#node = options.nodeId ?? randomUUID();
    channels.subscribe(this.#channel, this.#apply);
  }

  override forget(credentialId: string): void {
    super.forget(credentialId);
    this.#channels.publish(this.#channel, { kind: 'credential', id: credentialId, node: this.#node });
  }

  override forgetUser(userId: string): void {
    super.forgetUser(userId);
    this.#channels.publish(this.#channel, { kind: 'user', id: userId, node: this.#node });
  }

  /** Stops applying other nodes' forgets: at shutdown, before the channels close. */
  stop(): void {
    this.#channels.unsubscribe(this.#channel, this.#apply);
  }

  readonly #apply = (message: CredentialInvalidation): void => {
    if (message.node === this.#node) return;
    if (message.kind === 'credential') super.forget(message.id);
    else if (message.kind === 'user') super.forgetUser(message.id);
  };
}
