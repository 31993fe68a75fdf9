import { SECCOMP_FD } from './seccomp-filter.js';
import { shellQuote } from './shell-relay.js';

/** A program and its arguments, as spawn takes them. */
export interface Command {
  file: string;
  args: string[];
}

/**
 * How a sandbox's first process is tied to the server that starts it. bubblewrap's
 * --die-with-parent holds only from the moment bubblewrap runs; a server killed between its
 * fork and that moment would leave a sandbox with no parent to die with, running until the
 * next start clears its group. setpriv sets the same parent-death signal first, and the shell
 * it runs then checks that its parent is still the server: either the server is gone and
 * nothing starts, or its death from then on kills the whole chain.
 */
export interface ParentGuard {
  /** setpriv's path (util-linux 2.33 or later, for --pdeathsig). */
  setpriv: string;
  /** The pid the process must still have for its parent once the signal is set. */
  parentPid: number;
}

/** The exit status of a process whose parent was gone before it could be tied to it. */
const PARENT_GONE_STATUS = 125;

/**
 * `command`, started so that it joins the run's control group (every `procsFiles` entry,
 * before anything of it runs, so nothing it starts is ever outside the group), with the
 * seccomp program open on SECCOMP_FD for bubblewrap's `--seccomp` when one is given, and, with
 * a guard, dying with its parent from its first instruction. One small shell does all three.
 */
export function launchCommand(
  command: Command,
  how: { procsFiles?: readonly string[] | undefined; guard?: ParentGuard | undefined; seccompFile?: string | undefined },
): Command {
  const { procsFiles = [], guard, seccompFile } = how;
  if (!guard && procsFiles.length === 0 && !seccompFile) return command;
  const steps = procsFiles.map((file) => `echo $$ > ${shellQuote(file)} || exit 1`);
  if (seccompFile) steps.push(`exec ${SECCOMP_FD}<${shellQuote(seccompFile)} || exit 1`);
  const guardArgs: string[] = [];
  if (guard) {
    // $PPID is read when the shell starts, which is after setpriv set the signal.
    steps.unshift(`[ "$PPID" = "$1" ] || exit ${PARENT_GONE_STATUS}`, 'shift');
    guardArgs.push(String(guard.parentPid));
  }
  const shell = ['-c', [...steps, 'exec "$@"'].join('; '), 'sh', ...guardArgs, command.file, ...command.args];
  if (!guard) return { file: '/bin/sh', args: shell };
  return { file: guard.setpriv, args: ['--pdeathsig', 'KILL', '--', '/bin/sh', ...shell] };
}
