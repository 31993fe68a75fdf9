import type { LimitBreach } from '../ports/sandbox.js';

/** Why a run that went over `breach` was ended, as its agent.info and its failure say; `subject` is what went over. */
export function breachReason(
  breach: LimitBreach,
  limits: { memoryMb: number; cpuSeconds: number; processLimit: number; outputLimitBytes: number; outputFileLimit: number },
  subject = 'the skill',
): string {
  switch (breach.limit) {
    case 'memory':
      return `${subject} went over its memory limit of ${limits.memoryMb} MiB`;
    case 'cpu':
      return `${subject} used more than its CPU time limit of ${limits.cpuSeconds} seconds`;
    case 'processes':
      return `${subject} started more processes than its limit of ${limits.processLimit}`;
    case 'output-bytes':
      return `${subject} wrote more than its output limit of ${limits.outputLimitBytes} bytes`;
    case 'output-files':
      return `${subject} wrote more files than its limit of ${limits.outputFileLimit}`;
  }
}
