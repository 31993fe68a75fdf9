import { COMPUTER_TOOL_NAMES } from './computer-tools.js';

/** The narrow tools of DESIGN §9, kept for the skills that name them. */
export const FILE_TOOL_NAMES: readonly string[] = ['list_files', 'read_file', 'write_file', 'run_script'];

/** The open standard's spellings (Claude Code's) of the computer's tools. */
const STANDARD_NAMES: Record<string, string> = {
  Bash: 'bash',
  Read: 'read',
  Write: 'write',
  Edit: 'edit',
  Glob: 'glob',
  Grep: 'grep',
  WebFetch: 'web_fetch',
};

/** The tools one run gets, from the skill's `allowed-tools`. */
export interface Toolset {
  /** Tool names in the order they are offered. */
  names: string[];
  /** Whether any of them needs the computer. */
  needsComputer: boolean;
  /** `Bash(python:*)` and the like: the commands bash may start with; empty, any. */
  bashPrefixes: string[];
}

/**
 * Reads `allowed-tools`: our names, the standard's (`Bash`, `Bash(python:*)`, `Read`, …), or
 * nothing at all, which gives the whole computer. A name this server does not know is
 * skipped, as the format asks of tools an agent does not have. `web_fetch` is offered only
 * when the operator allows hosts.
 */
export function chooseToolset(allowedTools: readonly string[] | undefined, webFetch: boolean): Toolset {
  const computer = [...COMPUTER_TOOL_NAMES, ...(webFetch ? ['web_fetch'] : [])];
  if (allowedTools === undefined) return { names: computer, needsComputer: true, bashPrefixes: [] };
  const names = new Set<string>();
  const bashPrefixes = new Set<string>();
  let wholeBash = false;
  for (const given of allowedTools) {
    const scoped = /^Bash\(([^):*\s]+)[^)]*\)$/.exec(given);
    if (scoped?.[1]) {
      names.add('bash');
      bashPrefixes.add(scoped[1]);
      continue;
    }
    const name = STANDARD_NAMES[given] ?? given;
    if (name === 'bash') wholeBash = true;
    if (computer.includes(name) || FILE_TOOL_NAMES.includes(name)) names.add(name);
  }
  const offered = [...computer, ...FILE_TOOL_NAMES].filter((name) => names.has(name));
  return {
    names: offered,
    needsComputer: offered.some((name) => COMPUTER_TOOL_NAMES.includes(name)),
    bashPrefixes: wholeBash ? [] : [...bashPrefixes],
  };
}
