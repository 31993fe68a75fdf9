import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { type Command, Option } from 'commander';
import { CliError, EXIT } from '../output.js';
import { baseUrlOf, type GlobalOptions } from '../session.js';
import { slugOf } from '../skill-folder.js';
import { type SkillKind, skillTemplate } from '../skill-template.js';

interface InitOptions {
  kind?: SkillKind;
  name?: string;
}

/** "my-skill" as a name a person would give it: "My skill". */
function nameOf(folder: string): string {
  const words = path.basename(path.resolve(folder)).replace(/[-_]+/g, ' ').trim() || 'My skill';
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Asks at a terminal; elsewhere (a script, CI) the answer is the default, never a wait. */
async function ask(question: string, fallback: string): Promise<string> {
  if (!process.stdin.isTTY) return fallback;
  const lines = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await lines.question(`${question} [${fallback}]: `)).trim() || fallback;
  } finally {
    lines.close();
  }
}

async function askKind(): Promise<SkillKind> {
  for (;;) {
    const answer = await ask(
      'A script skill (your JavaScript) or an agent skill (instructions for a model)? script/agent',
      'script',
    );
    if (answer === 'script' || answer === 'agent') return answer;
    process.stderr.write('Type script or agent.\n');
  }
}

/** What a folder already holds; an absent folder holds nothing. */
async function entriesOf(folder: string): Promise<string[]> {
  try {
    return await readdir(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    if (code === 'ENOTDIR') throw new CliError(`${folder} is a file. Give a new folder's name, such as my-skill.`, EXIT.usage);
    throw error;
  }
}

/** `skillet skills init [folder]`: a skill folder that installs and runs as it is. */
export function skillInitCommand(skills: Command, global: () => GlobalOptions): void {
  skills
    .command('init [folder]')
    .description('make a new skill folder (SKILL.md and a script) that installs and runs as it is')
    .addOption(
      new Option('--kind <kind>', 'script (your JavaScript) or agent (instructions for a model)').choices(['script', 'agent']),
    )
    .option('--name <name>', "the skill's name, as people see it (default: from the folder's name)")
    .action(async (given: string | undefined, options: InitOptions) => {
      const name = (options.name ?? (await ask('Its name', given ? nameOf(given) : 'My skill'))).trim();
      if (name === '') throw new CliError('A skill needs a name: give one with --name, such as --name "Word count".', EXIT.usage);
      const folder = given ?? slugOf(name);
      const kind = options.kind ?? (await askKind());
      const present = await entriesOf(folder);
      if (present.length > 0) {
        throw new CliError(
          `${folder} already holds files (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}), and init leaves them alone. Give a new or empty folder, such as ${slugOf(name)}-2.`,
          EXIT.usage,
        );
      }
      const files = skillTemplate(kind, name);
      await mkdir(folder, { recursive: true });
      for (const file of files) await writeFile(path.join(folder, file.path), file.content, { flag: 'wx' });
      const slug = slugOf(path.basename(path.resolve(folder)));
      const shown = path.isAbsolute(folder) || folder.startsWith('.') ? folder : `./${folder}`;
      const docs = `${(await baseUrlOf(global())).replace(/\/+$/, '')}/docs/writing-skills`;
      process.stdout.write(
        [
          `Made ${kind === 'script' ? 'a script' : 'an agent'} skill in ${shown}: ${files.map((file) => file.path).join(' and ')}.`,
          'Install it and run it:',
          `  skillet skills install ${shown}`,
          `  skillet run ${slug}`,
          ...(kind === 'agent' ? ["An agent skill needs a model key: the server's, or your own on the Billing page."] : []),
          `How to change it: ${docs}`,
          '',
        ].join('\n'),
      );
    });
}
