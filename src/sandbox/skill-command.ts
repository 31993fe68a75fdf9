import path from 'node:path';
import { PROJECT_ROOT, SKILL_HARNESS } from '../paths.js';
import type { SkillSandbox } from '../ports/sandbox.js';
import { SKILL_NODE } from './node-runtime.js';
import { namespaceArgs } from './sandbox.js';
import { seccompArgs } from './seccomp-filter.js';
import { prlimitArgs } from './watched-child.js';

export interface CommandLimits {
  memoryMb: number;
  cpuSeconds: number;
  outputLimitBytes: number;
}

/** The folder of a script's working folder where the files its run was given appear, read only (DESIGN §15). */
export const UPLOADS_FOLDER = 'uploads';

/**
 * The command that runs one script skill: Node with the permission model (reads the skill,
 * the harness and the shared packages; writes only the output folder), inside bubblewrap
 * when the sandbox has it, under prlimit's hard limits when prlimit is there.
 */
export function skillCommand(
  sandbox: SkillSandbox,
  run: { skillDir: string; entry: string; outputDir: string; uploadsDir?: string | undefined },
  limits: CommandLimits,
): { file: string; args: string[] } {
  const readable = [run.skillDir, path.dirname(SKILL_HARNESS), path.join(PROJECT_ROOT, 'node_modules')];
  // Without bubblewrap ./uploads is a link to the run's folder, which Node must be let read.
  if (run.uploadsDir && sandbox.kind !== 'bwrap') readable.push(run.uploadsDir);
  const node = sandbox.runtimeFiles[0] ?? process.execPath;
  const nodeArgs = [
    SKILL_NODE.permissionFlag,
    ...[...readable, run.outputDir].map((dir) => `--allow-fs-read=${dir}`),
    `--allow-fs-write=${run.outputDir}`,
    `--max-old-space-size=${limits.memoryMb}`,
    SKILL_HARNESS,
    run.entry,
    run.outputDir,
    String(limits.outputLimitBytes),
  ];
  let command = { file: node, args: nodeArgs };
  if (sandbox.kind === 'bwrap' && sandbox.bwrapPath) {
    const mounts = run.uploadsDir ? [{ source: run.uploadsDir, target: path.join(run.outputDir, UPLOADS_FOLDER) }] : [];
    const isolation = namespaceArgs(sandbox.runtimeFiles, readable, [run.outputDir], mounts);
    const seccomp = seccompArgs(sandbox.seccompFile);
    command = { file: sandbox.bwrapPath, args: [...seccomp, ...isolation, '--chdir', run.outputDir, node, ...nodeArgs] };
  }
  if (!sandbox.prlimit) return command;
  const rlimits = prlimitArgs(limits, limits.memoryMb * 1024 * 1024 + SKILL_NODE.dataHeadroomBytes);
  return { file: sandbox.prlimit, args: [...rlimits, '--', command.file, ...command.args] };
}
