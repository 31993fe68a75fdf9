import { channel } from 'node:diagnostics_channel';
import type { LimitBreach } from '../../ports/sandbox.js';
import { breachReason } from '../../sandbox/limit-breach.js';
import type { RunLimits } from '../../sandbox/types.js';

/* How a script run's child ended, in words: the limit it went over, or the error it printed last. */

/** The error line of what the child printed last, without stack frames or Node's banner. */
function errorLine(stderr: string): string | undefined {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('at ') && !line.startsWith('Node.js v'));
  return lines.findLast((line) => /^\w*(Error|Exception)\b.*:/.test(line)) ?? lines.at(-1);
}

/**
 * Told of every run ended for breaking a limit, by cause (metrics count them). A channel
 * rather than a callback: the runtime is built per run from narrow services, and several
 * apps may share a process in tests, so a subscriber keeps only messages whose `limits`
 * is its own configuration object.
 */
export const sandboxKills = channel('skillet.sandbox-kill');

export interface SandboxKill {
  cause: LimitBreach['limit'] | 'time' | 'event-bytes' | 'line-length';
  limits: RunLimits;
}

export function reportKill(cause: SandboxKill['cause'], limits: RunLimits): void {
  if (sandboxKills.hasSubscribers) sandboxKills.publish({ cause, limits } satisfies SandboxKill);
}

/** The limit a hard rlimit (or V8's heap cap) enforced when the skill died of one. */
export function limitOfExit(signal: NodeJS.Signals | null, stderr: string): 'memory' | 'cpu' | 'output-bytes' | undefined {
  if (/heap out of memory|Allocation failed|allocation failed/i.test(stderr)) return 'memory';
  if (signal === 'SIGXCPU') return 'cpu';
  // Node ignores SIGXFSZ, so a write past the file-size rlimit fails with EFBIG instead.
  if (signal === 'SIGXFSZ' || /\bEFBIG\b/.test(stderr)) return 'output-bytes';
  return undefined;
}

export function exitReason(code: number | null, signal: NodeJS.Signals | null, stderr: string, limits: RunLimits): string {
  const limit = limitOfExit(signal, stderr);
  if (limit === 'memory') return breachReason({ limit: 'memory', bytes: 0 }, limits);
  if (limit === 'cpu') return breachReason({ limit: 'cpu', seconds: limits.cpuSeconds }, limits);
  if (limit === 'output-bytes') return breachReason({ limit: 'output-bytes', bytes: limits.outputLimitBytes }, limits);
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  const detail = errorLine(stderr);
  return detail ? `the skill ${how}: ${detail.slice(0, 300)}` : `the skill ${how}`;
}
