import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SkillFolderFile } from '../sdk/types.js';
import { CliError, EXIT } from './output.js';

/** A folder's name as a slug (the skill's, unless its SKILL.md names one): "My Skill_2" is my-skill-2. */
export function slugOf(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'skill'
  );
}

/** Folders a skill never needs and a developer's folder often has: left behind, said so. */
const LEFT_OUT = new Set(['.git', 'node_modules']);

export interface PackedFolder {
  folderName: string;
  files: SkillFolderFile[];
  /** What was not sent, in words, for the person to read. */
  leftOut: string[];
}

/**
 * A skill's folder as the server takes it: every regular file under it with its path
 * relative to the folder and its bytes in base64. Version control and dependency folders
 * are left out, and so are links (a link could point anywhere on this machine).
 */
export async function packSkillFolder(folder: string): Promise<PackedFolder> {
  const root = path.resolve(folder);
  const stats = await lstat(root).catch(() => undefined);
  if (!stats?.isDirectory()) {
    throw new CliError(`${folder} is not a folder. Give the folder that holds the skill's SKILL.md.`, EXIT.usage);
  }
  const files: SkillFolderFile[] = [];
  const leftOut: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const absolute = path.join(dir, entry.name);
      const relative = path.relative(root, absolute).split(path.sep).join('/');
      if (entry.isDirectory()) {
        if (LEFT_OUT.has(entry.name)) leftOut.push(`${relative}/`);
        else await walk(absolute);
      } else if (entry.isFile()) {
        files.push({ path: relative, content: (await readFile(absolute)).toString('base64') });
      } else {
        leftOut.push(`${relative} (not a regular file)`);
      }
    }
  };
  await walk(root);
  return { folderName: slugOf(path.basename(root)), files, leftOut };
}
