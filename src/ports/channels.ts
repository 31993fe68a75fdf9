import type { ExecutionStatus } from '../db/tables-runs.js';

/*
 * The channels a node announces on (DESIGN §12): what the realtime parts publish and
 * subscribe to, declared here so the context can name them without knowing who implements them.
 */

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

/** What a workspace's clients are told of an execution's progress. */
export type ExecutionSignal = 'execution-started' | 'execution-progress' | 'execution-completed' | 'execution-failed';

/**
 * What the control channel carries. On a workspace's channel: what its WebSocket clients
 * get, as bare JSON objects. On a credential's channel: its revocation, which closes the
 * sockets opened with it and is never sent to a client.
 */
export type ControlMessage =
  | { type: ExecutionSignal; executionId: string; workspaceId: string; status: ExecutionStatus; at: string }
  | { type: 'cache-invalidate'; keys: string[]; workspaceId: string; at: string }
  | { type: 'credential-revoked'; credentialId: string; at: string }
  | { type: 'stop-run'; executionId: string; at: string }
  /** On an approval's channel (threads/thread-approvals.ts): its answer, for the turn waiting on it. */
  | { type: 'thread-approval-decided'; approvalId: string; approved: boolean; at: string };
