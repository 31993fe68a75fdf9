import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Skill, SkillCatalog } from '../ports/skills.js';
import { ManifestError, parseSkillManifest } from './manifest.js';

/** The installed skills, by slug. Every workspace has all of them. */
export class SkillRegistry implements SkillCatalog {
  readonly #bySlug: Map<string, Skill>;

  constructor(skills: Skill[]) {
    this.#bySlug = new Map(skills.map((skill) => [skill.slug, skill]));
  }

  get(slug: string): Skill | undefined {
    return this.#bySlug.get(slug);
  }

  list(): Skill[] {
    return [...this.#bySlug.values()].sort((a, b) => a.slug.localeCompare(b.slug));
  }
}

async function loadFolder(root: string, builtIn: boolean, problems: string[]): Promise<Skill[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const skills: Skill[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith('.') || entry.name.startsWith('_')) continue;
    const dir = path.join(root, entry.name);
    const source = await readFile(path.join(dir, 'SKILL.md'), 'utf8').catch(() => undefined);
    if (source === undefined) continue;
    try {
      skills.push({ ...parseSkillManifest(source, entry.name), dir, builtIn });
    } catch (error) {
      if (!(error instanceof ManifestError)) throw error;
      problems.push(`${dir}: ${error.message}`);
    }
  }
  return skills;
}

/**
 * Loads the built-in skills and any extra folder of skills. A skill whose SKILL.md does
 * not parse is left out and reported; a later folder's skill replaces a built-in of the
 * same slug.
 */
export async function loadSkillRegistry(folders: { builtIn: string; extra?: string | undefined }) {
  const problems: string[] = [];
  const builtIns = await loadFolder(folders.builtIn, true, problems);
  const extras = folders.extra ? await loadFolder(folders.extra, false, problems) : [];
  const builtInSlugs = new Set(builtIns.map((skill) => skill.slug));
  /** Built-ins an operator's skill of the same slug stands in for: said at start, so nobody wonders which one ran. */
  const replaced = extras.filter((skill) => builtInSlugs.has(skill.slug)).map((skill) => skill.slug);
  return { registry: new SkillRegistry([...builtIns, ...extras]), problems, replaced };
}
