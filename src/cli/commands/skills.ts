import type { Command } from 'commander';
import type { SkilletClient } from '../../sdk/client.js';
import { SkilletError } from '../../sdk/errors.js';
import { modelUseNote, priceLabel } from '../../sdk/skill-price.js';
import type { SkillItem } from '../../sdk/types.js';
import { CliError, EXIT, printJson, printTable, wantsJson } from '../output.js';
import { type GlobalOptions, signedInClient } from '../session.js';
import { packSkillFolder } from '../skill-folder.js';
import { skillChangeCommands } from './skill-changes.js';
import { skillInitCommand } from './skill-init.js';

/** The marketplace's largest page: the list is read page by page to its end. */
const PAGE = 100;

export async function allSkills(client: SkilletClient): Promise<SkillItem[]> {
  const skills: SkillItem[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await client.skills.list({ limit: PAGE, offset });
    skills.push(...page.items);
    if (!page.hasMore) return skills;
  }
}

/** One skill by its slug; an unknown slug is an answer the person can act on, not a stack. */
export async function skillOf(client: SkilletClient, slug: string): Promise<SkillItem> {
  try {
    return await client.skills.get(slug);
  } catch (error) {
    if (error instanceof SkilletError && error.status === 404) {
      throw new CliError(`No skill "${slug}". See \`skillet skills\` for the list.`, EXIT.failure);
    }
    throw error;
  }
}

/** Where a skill comes from, in the list's words: the workspace's own, or the server's. */
const fromOf = (skill: SkillItem) => (skill.source === 'workspace' ? 'yours' : 'server');

export function skillCommands(program: Command, global: () => GlobalOptions): void {
  const skills = program
    .command('skills')
    .description('list the skills you can run (and see the subcommands)')
    .option('--json', 'print the answer as JSON')
    .action(async (options: { json?: boolean }) => {
      const list = await allSkills(await signedInClient(global()));
      if (options.json) return printJson(list);
      printTable(
        ['SLUG', 'FROM', 'PRICE', 'RUNTIME', 'DESCRIPTION'],
        list.map((skill) => [skill.slug, fromOf(skill), priceLabel(skill), skill.runtime, skill.description]),
      );
    });

  skills
    .command('install <path>')
    .description('install a skill from a folder (its SKILL.md at the top) into your workspace')
    .option('--slug <slug>', "the slug to run it by, in place of its SKILL.md's or the folder's name")
    .option('--json', 'print the installed skill as JSON')
    .action(async (folder: string, options: { slug?: string }, command: Command) => {
      const packed = await packSkillFolder(folder);
      for (const left of packed.leftOut) process.stderr.write(`Left out: ${left}\n`);
      const client = await signedInClient(global());
      const installed = await client.skills.install(packed.folderName, packed.files, options.slug ? { slug: options.slug } : {});
      if (wantsJson(command)) return printJson(installed);
      const files = `${installed.files} file${installed.files === 1 ? '' : 's'}`;
      process.stdout.write(
        `Installed ${installed.name} (${installed.slug}, ${files}). Run it: skillet run ${installed.slug} "<input>"\n`,
      );
    });

  skillInitCommand(skills, global);

  skills
    .command('show <slug>')
    .description('show a skill: its name, price and the input it expects')
    .option('--json', 'print the answer as JSON')
    .action(async (slug: string, _options: unknown, command: Command) => {
      const skill = await skillOf(await signedInClient(global()), slug);
      if (wantsJson(command)) return printJson(skill);
      const lines = [
        `${skill.name} (${skill.slug})`,
        `Price:    ${priceLabel(skill)}`,
        ...(skill.modelUse ? [`          ${modelUseNote(skill)}`] : []),
        `Runtime:  ${skill.runtime}`,
        ...(skill.source === 'workspace'
          ? [`From:     yours, installed into this workspace (skillet skills update FOLDER, skillet skills remove ${skill.slug})`]
          : []),
        `Input:    ${skill.input}`,
        ...(skill.defaultInput === null ? [] : [`Default:  ${JSON.stringify(skill.defaultInput)} (used when you give no input)`]),
        ...(skill.examples.length === 0
          ? []
          : [`Examples: ${skill.examples.map((example) => JSON.stringify(example)).join(', ')}`]),
        `Run it:   skillet run ${skill.slug} "<input>"   (or --input-file PATH, or - for stdin${skill.takesFiles ? '; --file PATH gives it a file' : ''})`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    });

  skillChangeCommands(skills, global);
}
