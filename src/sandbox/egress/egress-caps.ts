import type { Socket } from 'node:net';
import type { Duplex, Readable } from 'node:stream';
import { EgressRefused } from './egress-policy.js';

/** Why the proxy closed a connection itself; a connection either end closed has none. */
export type ClosedBy = 'idle' | 'lifetime' | 'quota';

/**
 * One connection from the sandbox, which the proxy may close for a cap. The reason is kept
 * until the connection's destination socket closes, when its log line is written.
 */
export class SandboxConnection {
  closedBy: ClosedBy | undefined;
  readonly #lifetime: NodeJS.Timeout;

  constructor(
    readonly socket: Duplex,
    lifetimeMs: number,
  ) {
    this.#lifetime = setTimeout(() => this.close('lifetime'), lifetimeMs);
    socket.once('close', () => clearTimeout(this.#lifetime));
  }

  /** Notes the reason (the first one stands) and closes; what it carried closes with it. */
  close(why: ClosedBy): void {
    this.closedBy ??= why;
    this.socket.destroy();
  }
}

const bytesOf = (socket: Socket) => socket.bytesRead + socket.bytesWritten;

/**
 * The bytes a run may move through its proxy, both ways and all connections together, as
 * the destination sockets count them (the numbers the log reports). Counts are read as
 * bytes pass, after each read from either end, so a run may go past the quota by what one
 * read carried; once past, every open connection is closed and new ones are refused.
 */
export class RunQuota {
  /** Bytes of destination sockets already closed. */
  #settled = 0;
  readonly #open = new Map<Socket, SandboxConnection>();

  constructor(readonly bytes: number) {}

  get spent(): number {
    let total = this.#settled;
    for (const socket of this.#open.keys()) total += bytesOf(socket);
    return total;
  }

  /** Refuses a new connection once the quota is spent, in words for the program that asked. */
  admit(): void {
    if (this.spent < this.bytes) return;
    throw new EgressRefused(
      `this run has used all ${this.bytes} bytes of network traffic it may; the rest of the run must do without the network (an operator can raise SKILL_NETWORK_BYTES_PER_RUN)`,
    );
  }

  /**
   * Counts `upstream`'s bytes: checked when it reads, and when `sent` (what the sandbox
   * sends it) gives it a chunk. Call once both are flowing: a 'data' listener starts a
   * paused stream.
   */
  meter(upstream: Socket, sent: Readable, connection: SandboxConnection): void {
    this.#open.set(upstream, connection);
    upstream.once('close', () => {
      this.#open.delete(upstream);
      this.#settled += bytesOf(upstream);
    });
    // Registered after the pipes, so a chunk has been written on before it is counted.
    const check = () => this.#check();
    upstream.on('data', check);
    sent.on('data', check);
  }

  #check(): void {
    if (this.spent <= this.bytes) return;
    for (const [upstream, connection] of this.#open) {
      connection.close('quota');
      // At once, not when the sandbox's side has closed: it would read on until then.
      upstream.destroy();
    }
  }
}
