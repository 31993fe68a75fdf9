import type { SkillSandbox } from '../../ports/sandbox.js';
import { GRANT_CGROUPS_HINT } from '../cgroup-detection.js';

/**
 * Why this server cannot give a computer (bubblewrap and cgroup control are both needed),
 * in words for the person who asked; undefined when it can. Agent runs and the threads
 * assistant ask the same question here.
 */
export function computerMissing(sandbox: SkillSandbox): string | undefined {
  const needs = 'This skill needs the computer (a shell with Python, in a sandbox)';
  if (sandbox.kind !== 'bwrap' || !sandbox.bwrapPath) {
    return `${needs}, and this server has no sandbox to run it in. An operator can install bubblewrap (Debian: apt-get install bubblewrap) and allow unprivileged user namespaces.`;
  }
  if (!sandbox.cgroups) {
    return `${needs}, and this server cannot hold a run's memory, processes and CPU in a control group. To grant that, ${GRANT_CGROUPS_HINT}.`;
  }
  return undefined;
}
