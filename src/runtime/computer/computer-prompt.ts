import type { SkillSandbox } from '../../ports/sandbox.js';
import { softwareHostOf } from '../../sandbox/computer/computer-image.js';
import { COMPUTER_PATHS } from '../../sandbox/computer/computer-paths.js';
import { inspectSoftware, readSoftwareList } from '../../sandbox/computer/computer-software.js';

/** The answer for each system asked about: the host's, or an image's (by its root). */
const installed = new Map<string, Promise<string[]>>();

/**
 * What the computer has installed (the image's, or this host's), asked once per process (it
 * starts Python, off the event loop). A server asks as it warms its sandboxes, so runs find the
 * answer waiting. Never rejects: callers hold an opened computer while they ask, and a list that
 * cannot be read only leaves the prompt without it (`skillet doctor` reads the same list and stops on it).
 */
export function installedSoftware(sandbox: SkillSandbox): Promise<string[]> {
  const host = softwareHostOf(sandbox);
  let answer = installed.get(host.root);
  if (!answer) {
    answer = Promise.resolve()
      .then(() => inspectSoftware(readSoftwareList(), host))
      .then((software) => software.filter((item) => item.present).map((item) => item.provides))
      .catch(() => []);
    installed.set(host.root, answer);
  }
  return answer;
}

export interface ComputerPromptFacts {
  slug: string;
  uploads: { path: string; size: number }[];
  /** Hosts the egress proxy lets through; empty, no network. */
  allowedHosts: readonly string[];
  /** What the computer has installed (installedSoftware). */
  installed: readonly string[];
}

const UPLOADS_SHOWN = 100;

/** What the computer has installed and which network it reaches. */
function softwareAndNetwork(installed: readonly string[], allowedHosts: readonly string[]): string {
  const network =
    allowedHosts.length > 0
      ? `The network reaches only these hosts, through a proxy already set in HTTP_PROXY and HTTPS_PROXY: ${allowedHosts.join(', ')}.`
      : 'There is no network.';
  return `Installed: ${installed.join(', ')}. ${network}`;
}

const LIMITS_LINE =
  'Time, memory, processes and writable space are limited; a write past the space limit fails and you may remove files to go on.';

/** The part of the system prompt that tells the model about its computer (DESIGN §14). */
export function computerPrompt(facts: ComputerPromptFacts): string {
  const skillDir = `${COMPUTER_PATHS.skills}/${facts.slug}`;
  const files = facts.uploads
    .slice(0, UPLOADS_SHOWN)
    .map((file) => `  - ${COMPUTER_PATHS.uploads}/${file.path} (${file.size} bytes)`);
  const more = facts.uploads.length > UPLOADS_SHOWN ? [`  - and ${facts.uploads.length - UPLOADS_SHOWN} more`] : [];
  return [
    'You have a computer: a Linux sandbox with a bash shell that lasts the whole run.',
    softwareAndNetwork(facts.installed, facts.allowedHosts),
    `- ${COMPUTER_PATHS.workspace}: your working folder and home (writable).`,
    `- ${skillDir}/: this skill's own files, read only. Paths in the skill's instructions (scripts/, references/, assets/) are relative to it; run its scripts from there, e.g. python3 ${skillDir}/scripts/<name>.py.`,
    facts.uploads.length > 0
      ? `- ${COMPUTER_PATHS.uploads}/: the user's files, read only:\n${[...files, ...more].join('\n')}`
      : `- ${COMPUTER_PATHS.uploads}/: the user's files (none were given for this run).`,
    `- ${COMPUTER_PATHS.outputs}/: save what the user should get here (also reachable as ${COMPUTER_PATHS.outputsAlias}/); every file in it becomes the run's result.`,
    LIMITS_LINE,
  ].join('\n');
}

/**
 * The threads assistant's computer (DESIGN §13, §14): one per turn, for looking into skills
 * and working things out. Nothing it writes reaches the person, so the prompt sends results
 * through skill runs.
 */
export function assistantComputerPrompt(installed: readonly string[], allowedHosts: readonly string[]): string {
  const skills = COMPUTER_PATHS.skills;
  return [
    'You have a computer for this turn: a Linux sandbox with a bash shell, started the first time you use it and gone when',
    'your turn ends (the next turn starts a fresh one: nothing you write is kept).',
    softwareAndNetwork(installed, allowedHosts),
    `- ${COMPUTER_PATHS.workspace}: your working folder and home (writable).`,
    `- ${skills}/<slug>/: every skill this workspace can run, read only: read ${skills}/<slug>/SKILL.md and its files to`,
    `  explain a skill or choose one (ls ${skills} lists them).`,
    `- ${COMPUTER_PATHS.outputs}/: scratch like the rest, discarded at the end of the turn. Files for the person come only`,
    '  from skill runs (start_run): what a run writes becomes its artifact.',
    LIMITS_LINE,
  ].join('\n');
}
