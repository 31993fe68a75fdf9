/*
 * A run's life as named, typed events (Trigger.dev's run engine bus is the model): the run
 * subsystem says what happened, and the parts above it (the control plane, webhooks, the
 * threads, the metrics) subscribe in compose.ts instead of being called by name.
 */
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import type { StopReason } from '../db/tables-runs.js';
import type { RunTarget } from './runs.js';
import type { RuntimeName } from './skills.js';

/** What happens in a run's life, by name, with what each event tells. */
export interface RunLifeEvents {
  /** A run was claimed (the execution is working) and waits for this node or a worker. */
  'run.started': RunTarget;
  /** This node began executing the run: its runtime started it. */
  'run.executing': RunTarget & { runtime: RuntimeName };
  /** This node left the run to another worker (it lost its database mid-run): its end is not this node's. */
  'run.handedOver': RunTarget;
  /** The run completed; `at` is when its end was stored, `artifactId` the artifact it wrote. */
  'run.completed': RunTarget & { at: string; cost: number; artifactId?: string };
  /** The run failed: by its own doing (an error, a limit) or the service's. */
  'run.failed': RunTarget & {
    at: string;
    cost: number;
    reason: string;
    stopReason: Extract<StopReason, 'error' | 'limit_reached'>;
  };
  /** The run was stopped (a person, or the server shutting down): its execution is idle, to be resumed. */
  'run.stopped': RunTarget & { at: string; cost: number };
}

export type RunLifeName = keyof RunLifeEvents;
/** The events that end a run: each run has exactly one, stored with its closing events. */
export type RunEndName = 'run.completed' | 'run.failed' | 'run.stopped';

/** What the closing transaction read of the run's execution, for the parts writing within it. */
export interface ClosingFacts {
  skillSlug: string;
  /** Where the run was started from (the execution's `interface`). */
  interface: string;
}

/** What a part taking part in a closing transaction does once that transaction has committed. */
export type AfterCommit = () => void;

export type RunLifeListener<N extends RunLifeName> = (event: RunLifeEvents[N]) => void | Promise<void>;
export type ClosingListener<N extends RunEndName> = (
  trx: Kysely<Tables>,
  event: RunLifeEvents[N] & ClosingFacts,
) => Promise<AfterCommit | undefined>;
/** The closing listeners of one run end, bound to its event: run within the transaction storing its closing events. */
export type ClosingWork = (trx: Kysely<Tables>, facts: ClosingFacts) => Promise<AfterCommit[]>;

export interface RunLife {
  /** Hears `name` after it happened (a run's end: after its closing events are stored); in order of subscription. */
  on<N extends RunLifeName>(name: N, listener: RunLifeListener<N>): void;
  /**
   * Takes part in the transaction that stores a run's end: what the listener writes there
   * commits with the closing events, or not at all. It answers what to do after the commit.
   */
  within<N extends RunEndName>(name: N, listener: ClosingListener<N>): void;
  /** Tells every listener of `name`, one after another; a listener that fails is logged and stops nothing. */
  emit<N extends RunLifeName>(name: N, event: RunLifeEvents[N]): Promise<void>;
  /** The closing listeners' work for this end, or undefined when none listens (the end then needs no transaction). */
  closingWork<N extends RunEndName>(name: N, event: RunLifeEvents[N]): ClosingWork | undefined;
}
