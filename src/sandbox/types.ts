/**
 * The words the sandbox shares with the runtimes above it: what a run may use, and the refusal
 * of a skill that cannot be confined here.
 */

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

/** A skill that cannot run here at all; the run fails without being charged. */
export class SkillRefused extends Error {}
