/** A stream that writes a heartbeat comment of its own when told to. */
export interface Beating {
  heartbeat(): void;
}

/** What the registry needs of an open event stream. */
export interface OpenStream {
  /** Writes the keep-alive comment that stops proxies from closing an idle stream. */
  keepAlive(): void;
  close(): void;
  /** Ends the stream and then its connection, which would otherwise idle on as keep-alive. */
  closeConnection(): void;
  /** Reads from the store what announcements may have missed (the bus was cut off for a while). */
  catchUp(): void;
}

/** The heartbeat comments of a node's open streams, on one timer (realtime/heartbeats.ts). */
export interface HeartbeatRegistry {
  add(stream: Beating): void;
  delete(stream: Beating): void;
}

/** Every open event stream of this process: their keep-alive comments, and ending them at shutdown (realtime/open-streams.ts). */
export interface StreamRegistry {
  add(stream: OpenStream): void;
  delete(stream: OpenStream): void;
  /** After the bus reconnects: announcements sent while it was away reached nobody here. */
  catchUpAll(): void;
  /** Ends every open stream, and any opened from now on. */
  closeAll(): void;
}
