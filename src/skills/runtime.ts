import type { SkillMessage } from './protocol.js';
import type { Skill } from './registry.js';
import type { SkillSandbox } from './sandbox.js';

/** What one run may use; a runtime enforces those that apply to it and names the one broken. */
export interface RunLimits {
  timeoutMs: number;
  memoryMb: number;
  cpuSeconds: number;
  outputLimitBytes: number;
  outputFileLimit: number;
  lineLimitBytes: number;
  eventBytesPerRun: number;
  processLimit: number;
}

/**
 * How a run ended. A failure is the skill's own unless `fault` says the service failed it
 * (it could not be started or confined); those runs are not charged.
 */
export type RunOutcome = { kind: 'completed' } | { kind: 'stopped' } | { kind: 'failed'; reason: string; fault?: 'service' };

export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
}

/** Everything a finished run hands back, in one piece. */
export interface RunResult {
  outcome: RunOutcome;
  tokenUsage: TokenUsage;
  /** The skill's own one-line account of what it did; empty when it gave none. */
  summary: string;
}

/** What a run reports while it works; its summary comes with its result instead. */
export type RunMessage = Exclude<SkillMessage, { type: 'result' }>;

export interface RunRequest {
  skill: Skill;
  input: string;
  /** Where the run writes its files; created by the runtime. */
  outputDir: string;
  limits: RunLimits;
  /** Aborting stops the run: it ends as stopped (an interrupt or a cancel). */
  signal: AbortSignal;
  /** Each message in order; the next waits until this one is handled. */
  onMessage: (message: RunMessage) => Promise<void>;
}

/** A run that has started. */
export interface StartedRun {
  finished: Promise<RunResult>;
}

/** What a runtime may take from the server to do its work. */
export interface RuntimeServices {
  sandbox: SkillSandbox;
}

/**
 * Runs skills of one kind (a manifest's `runtime`). `start` resolves once the run is under
 * way, or rejects when it could not be started (SkillRefused: it cannot run here at all).
 */
export interface SkillRuntime {
  start(request: RunRequest): Promise<StartedRun>;
}

/** A skill that cannot run here at all; the run fails without being charged. */
export class SkillRefused extends Error {}

/** The result of a run the service ended before any runtime did work for it. */
export function resultWithoutRun(outcome: RunOutcome): RunResult {
  return { outcome, tokenUsage: { input_tokens: 0, output_tokens: 0 }, summary: '' };
}
