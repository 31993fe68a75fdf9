import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { AgentSettings } from '../config.js';
import type { ModelProvider, TokenUsage } from '../language-models.js';
import type { ClearingQueue, RunUploads } from '../ports/runs.js';
import type { SkillSandbox, WarmSandbox } from '../ports/sandbox.js';
import type { Skill } from '../ports/skills.js';
import type { RunComputer } from '../sandbox/computer/computer-session.js';
import type { RunLimits } from '../sandbox/types.js';
import type { JournalStep, RunJournal } from './journal-steps.js';
import type { SkillMessage } from './protocol.js';

/**
 * How a run ended. A failure is the skill's own unless `fault` says otherwise: `service`,
 * the service failed it (it could not be started or confined, a house model key was
 * refused); `own-key`, the payer's own model key was refused before the run did any work.
 * Those runs are not charged. `limit_reached`: the payer's credits ran out during the run.
 */
export type RunOutcome =
  | { kind: 'completed' }
  | { kind: 'stopped' }
  | { kind: 'failed'; reason: string; fault?: 'service' | 'own-key' }
  | { kind: 'limit_reached'; reason: string };

/** Everything a finished run hands back, in one piece. */
export interface RunResult {
  outcome: RunOutcome;
  tokenUsage: TokenUsage;
  /** The skill's own one-line account of what it did; empty when it gave none. */
  summary: string;
}

/**
 * What a run reports while it works; its summary comes with its result instead. Besides a
 * script's messages, an agent run reports each tool call under the model's id for it and
 * each model call's token usage.
 */
export type RunMessage =
  | Exclude<SkillMessage, { type: 'result' }>
  | { type: 'tool_call'; id: string; name: string; label: string }
  | { type: 'model_call'; usage: TokenUsage };

/** The account a run is paid from, for runtimes whose work costs as it goes (model calls). */
export interface RunAccount {
  /** The payer's own model key, when stored: calls on it cost nothing. */
  ownModelKey(): Promise<{ provider: ModelProvider; key: string } | undefined>;
  /** Whether the payer is charged at all (admins and site-license holders are not). */
  isCharged(): Promise<boolean>;
  /** Ds the payer can still spend: the balance less what is held for model calls under way. */
  spendable(): Promise<number>;
  /** Holds `amount` Ds for a model call about to start; the hold's id, or undefined when it cannot be covered. */
  hold(amount: number): Promise<string | undefined>;
  /** Lets a hold go unused (its call failed or was stopped). */
  release(holdId: string): Promise<void>;
  /**
   * Charges a model call `due` Ds, never below zero, letting its hold go with it, and journals
   * `step` (the call's answer) in the same transaction where the run keeps a journal;
   * resolves to the Ds it could not take.
   */
  charge(due: number, holdId?: string, step?: JournalStep): Promise<number>;
}

/**
 * A computer started ahead of need (src/runtime/computer/computer-pool.ts), already holding this
 * run's skill and files: an agent run takes it instead of starting one. It is this run's
 * alone; nothing of another run was ever in it.
 */
export interface WarmComputer extends WarmSandbox {
  kind: 'computer';
  computer: RunComputer;
}

/**
 * A script sandbox started ahead of need (src/runtime/script/script-pool.ts), holding this run's
 * skill: Node waits in it for the entry and the input on its stdin. It is this run's alone.
 */
export interface WarmScript extends WarmSandbox {
  kind: 'script';
  child: ChildProcessWithoutNullStreams;
  /** Settles when the child has exited and its pipes closed, whenever that was. */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The skill's entry module, where the sandbox sees it. */
  entry: string;
}

/** A warm sandbox's kind tells its shape: each pool makes sandboxes of its own kind only. */
export function isWarmComputer(warm: WarmSandbox | undefined): warm is WarmComputer {
  return warm?.kind === 'computer';
}

export function isWarmScript(warm: WarmSandbox | undefined): warm is WarmScript {
  return warm?.kind === 'script';
}

export interface RunRequest {
  skill: Skill;
  input: string;
  /** Where the run writes its files; created by the runtime. */
  outputDir: string;
  uploads?: RunUploads;
  limits: RunLimits;
  /** Aborting stops the run: it ends as stopped (an interrupt or a cancel). */
  signal: AbortSignal;
  /**
   * Each message, in the order of the calls: a runtime may hand on the next before this
   * one's promise settles (the handler then stores them together), and learns of a failure
   * to store one through that promise.
   */
  onMessage: (message: RunMessage) => Promise<void>;
  account: RunAccount;
  /** The execution this run is for, named in the log lines of its network. */
  runId: string;
  /** A warm sandbox taken for this run; the runtime releases it when the run ends. */
  warm?: WarmSandbox;
  /** Where an agent run journals its steps (a cluster's runs, which another worker may resume). */
  journal?: RunJournal;
}

/** A run that has started. */
export interface StartedRun {
  finished: Promise<RunResult>;
}

/** What a runtime may take from the server to do its work. */
export interface RuntimeServices {
  sandbox: SkillSandbox;
  config: {
    agent: AgentSettings;
    /** The computer's memory and writable space, and the hosts its network reaches (DESIGN §14). */
    executions: { computerMemoryMb: number; workspaceLimitBytes: number; allowedHosts: string[] };
    webhooks: { allowPrivateAddresses: boolean };
  };
  /** For what a run does outside a request: its network's connection log. */
  log: { info(fields: Record<string, unknown>, message: string): void };
  /** What a run's end leaves to be cleared away behind it (its computer's group and folders). */
  clearings: ClearingQueue;
}

/**
 * Runs skills of one kind (a manifest's `runtime`). `start` resolves once the run is under
 * way, or rejects when it could not be started (SkillRefused: it cannot run here at all).
 */
export interface SkillRuntime {
  start(request: RunRequest): Promise<StartedRun>;
}

/** The result of a run the service ended before any runtime did work for it. */
export function resultWithoutRun(outcome: RunOutcome): RunResult {
  return { outcome, tokenUsage: { input_tokens: 0, output_tokens: 0 }, summary: '' };
}
