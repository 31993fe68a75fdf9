import type { RunLimits } from '../types.js';

/**
 * A run's limits with its computer's memory in place of a script's: a computer holds a
 * shell, the programs a skill's workflow runs, and its writable space, all in one group.
 */
export function computerLimits<Limits extends RunLimits>(limits: Limits, computerMemoryMb: number): Limits {
  return { ...limits, memoryMb: computerMemoryMb };
}

/** A memory size as a person reads it: 4 GiB, 1.5 GiB, 64 MiB. */
export function memorySize(mb: number): string {
  if (mb < 1024) return `${mb} MiB`;
  const gib = Math.round((mb / 1024) * 10) / 10;
  return `${gib} GiB`;
}

const FREE_SOME =
  'Files in /workspace, /tmp and /dev/shm count toward that limit too. Use less memory at once (work through ' +
  'the data in parts, or remove files no longer needed) and try again.';

/** When a process was stopped for the computer's memory, from the call that finds it out. */
export type MemoryKillMoment = 'command-stopped' | 'command-finished' | 'computer-stopped' | 'file-tool' | 'between-calls';

/**
 * What the model reads when the kernel stopped a process of the computer for passing its
 * memory limit: the limit, what was kept, and what to do next (issue 49).
 */
export function memoryKillText(moment: MemoryKillMoment, limitMb: number): string {
  const limit = `the computer's memory limit of ${memorySize(limitMb)}`;
  switch (moment) {
    case 'command-stopped':
      return `The command was stopped: a process of it passed ${limit}, and the system ended that process. ${FREE_SOME}`;
    case 'command-finished':
      return (
        `Note: during this command a process in the computer passed ${limit} and the system ended it; ` +
        'the command itself finished.'
      );
    case 'computer-stopped':
      return (
        `The command was stopped: a process in the computer passed ${limit}, and the computer stopped with it. ` +
        `The next call starts it again, with the files of /workspace kept but the shell new. ${FREE_SOME}`
      );
    case 'file-tool':
      return `Note: during this call a process in the computer passed ${limit} and the system ended it.`;
    case 'between-calls':
      return (
        `Note: since the last call a process still running in the computer (one left in the background) passed ${limit}, ` +
        'and the system ended it.'
      );
  }
}
