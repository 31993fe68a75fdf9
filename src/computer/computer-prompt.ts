import { inspectSoftware, readSoftwareList } from '../skills/computer-software.js';
import { COMPUTER_PATHS } from './computer-paths.js';

let installed: string[] | undefined;

/** What this host's computer has installed, asked once per process (it starts Python). */
function installedSoftware(): string[] {
  installed ??= inspectSoftware(readSoftwareList())
    .filter((item) => item.present)
    .map((item) => item.provides);
  return installed;
}

export interface ComputerPromptFacts {
  slug: string;
  uploads: { path: string; size: number }[];
  /** Hosts the egress proxy lets through; empty, no network. */
  allowedHosts: readonly string[];
}

const UPLOADS_SHOWN = 100;

/** The part of the system prompt that tells the model about its computer (DESIGN §14). */
export function computerPrompt(facts: ComputerPromptFacts): string {
  const skillDir = `${COMPUTER_PATHS.skills}/${facts.slug}`;
  const files = facts.uploads
    .slice(0, UPLOADS_SHOWN)
    .map((file) => `  - ${COMPUTER_PATHS.uploads}/${file.path} (${file.size} bytes)`);
  const more = facts.uploads.length > UPLOADS_SHOWN ? [`  - and ${facts.uploads.length - UPLOADS_SHOWN} more`] : [];
  const network =
    facts.allowedHosts.length > 0
      ? `The network reaches only these hosts, through a proxy already set in HTTP_PROXY and HTTPS_PROXY: ${facts.allowedHosts.join(', ')}.`
      : 'There is no network.';
  return [
    'You have a computer: a Linux sandbox with a bash shell that lasts the whole run.',
    `Installed: ${installedSoftware().join(', ')}. ${network}`,
    `- ${COMPUTER_PATHS.workspace}: your working folder and home (writable).`,
    `- ${skillDir}/: this skill's own files, read only. Paths in the skill's instructions (scripts/, references/, assets/) are relative to it; run its scripts from there, e.g. python3 ${skillDir}/scripts/<name>.py.`,
    facts.uploads.length > 0
      ? `- ${COMPUTER_PATHS.uploads}/: the user's files, read only:\n${[...files, ...more].join('\n')}`
      : `- ${COMPUTER_PATHS.uploads}/: the user's files (none were given for this run).`,
    `- ${COMPUTER_PATHS.outputs}/: save what the user should get here (also reachable as ${COMPUTER_PATHS.outputsAlias}/); every file in it becomes the run's result.`,
    'Time, memory, processes and writable space are limited; a write past the space limit fails and you may remove files to go on.',
  ].join('\n');
}
