import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { ManifestError, parseSkillManifest } from '../../skills/manifest.js';
import { CliError, EXIT, printJson, wantsJson } from '../output.js';
import { type GlobalOptions, signedInClient } from '../session.js';
import { type PackedFolder, packSkillFolder } from '../skill-folder.js';

/**
 * The slug a folder installs under, as the server decides it: the SKILL.md's, else the
 * folder's name. A SKILL.md that does not parse is the server's to explain.
 */
function slugOfFolder(packed: PackedFolder): string {
  const manifest = packed.files.find((file) => file.path === 'SKILL.md');
  if (!manifest) return packed.folderName;
  try {
    return parseSkillManifest(Buffer.from(manifest.content, 'base64').toString('utf8'), packed.folderName).slug;
  } catch (error) {
    if (error instanceof ManifestError) return packed.folderName;
    throw error;
  }
}

/** Asks at a terminal; without one (a script, CI) nothing is removed unless --yes said so. */
async function confirmed(slug: string): Promise<boolean> {
  if (!process.stdin.isTTY) {
    throw new CliError(
      `Nothing was removed: there is no terminal to confirm at. To remove ${slug}, run: skillet skills remove ${slug} --yes`,
      EXIT.usage,
    );
  }
  const lines = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await lines.question(`Remove ${slug} from this workspace? Past runs keep their history. [y/N]: `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    lines.close();
  }
}

/** `skills update` and `skills remove`: a workspace's own skills, changed by its owners and admins. */
export function skillChangeCommands(skills: Command, global: () => GlobalOptions): void {
  skills
    .command('update <path>')
    .description('install a new version of a skill you installed, from its folder, keeping its slug')
    .option('--slug <slug>', "the installed skill's slug, when it is not the SKILL.md's or the folder's name")
    .option('--json', 'print the updated skill as JSON')
    .action(async (folder: string, options: { slug?: string }, command: Command) => {
      const packed = await packSkillFolder(folder);
      for (const left of packed.leftOut) process.stderr.write(`Left out: ${left}\n`);
      const slug = options.slug ?? slugOfFolder(packed);
      const client = await signedInClient(global());
      const updated = await client.skills.update(slug, packed.folderName, packed.files);
      if (wantsJson(command)) return printJson(updated);
      const files = `${updated.files} file${updated.files === 1 ? '' : 's'}`;
      process.stdout.write(`Updated ${updated.name} (${updated.slug}, ${files}). Its next run uses this version.\n`);
    });

  skills
    .command('remove <slug>')
    .description('remove a skill you installed from your workspace (past runs keep their history)')
    .option('-y, --yes', 'remove without asking')
    .action(async (slug: string, options: { yes?: boolean }) => {
      const client = await signedInClient(global());
      if (!options.yes && !(await confirmed(slug))) {
        process.stderr.write(`Nothing was removed: ${slug} is still installed.\n`);
        return;
      }
      await client.skills.remove(slug);
      process.stdout.write(`Removed ${slug}. Its past runs and their artifacts are still in your history.\n`);
    });
}
