import { parse as parseYaml } from 'yaml';

/** Which runtime runs a skill (see runtimes.ts). */
export type RuntimeName = 'script' | 'agent';

export interface SkillManifest {
  slug: string;
  name: string;
  description: string;
  runtime: RuntimeName;
  /** The module a script skill runs, relative to its folder. */
  entry: string | null;
  /** Ds charged per run, on top of any model usage. */
  price: number;
  /** Instructions: the Markdown after the front matter. */
  body: string;
}

export class ManifestError extends Error {}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/;
const SLUG_SHAPE = /^[a-z0-9][a-z0-9-]{0,62}$/;
const ENTRY_SHAPE = /^(?!\/)(?!.*\.\.)[\w./-]+\.m?js$/;

function text(fields: Record<string, unknown>, key: string): string | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new ManifestError(`${key} must be a non-empty string`);
  return value.trim();
}

/** Reads a SKILL.md: YAML front matter (name, description, slug, runtime, entry, price), then instructions. */
export function parseSkillManifest(source: string, folderName: string): SkillManifest {
  const match = FRONT_MATTER.exec(source);
  if (!match) throw new ManifestError('SKILL.md must start with YAML front matter between --- lines');
  let fields: unknown;
  try {
    fields = parseYaml(match[1] ?? '');
  } catch (error) {
    // Bad YAML is a bad manifest, like any other: the skill is left out, not the server.
    throw new ManifestError(`front matter is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    throw new ManifestError('front matter must be a YAML mapping');
  }
  const record = fields as Record<string, unknown>;
  const name = text(record, 'name');
  const description = text(record, 'description');
  if (!name || !description) throw new ManifestError('name and description are required');

  const slug = text(record, 'slug') ?? folderName;
  if (!SLUG_SHAPE.test(slug)) throw new ManifestError(`slug "${slug}" must be lower-case letters, digits and dashes`);
  const runtime = text(record, 'runtime') ?? 'script';
  if (runtime !== 'script' && runtime !== 'agent') throw new ManifestError('runtime must be script or agent');
  const entry = text(record, 'entry') ?? null;
  if (runtime === 'script' && (!entry || !ENTRY_SHAPE.test(entry))) {
    throw new ManifestError('a script skill needs an entry: a .js or .mjs file inside its folder');
  }
  const price = record.price ?? 0;
  if (typeof price !== 'number' || !Number.isInteger(price) || price < 0)
    throw new ManifestError('price must be a whole number of Ds');

  return { slug, name, description, runtime, entry, price, body: (match[2] ?? '').trim() };
}
