import { stringify } from 'yaml';

export function slugOf(name) {
  const slug = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return slug || 'new-skill';
}

/**
 * The generated entry module, the same for every skill. The description is user text, and
 * user text spliced into source can become source (a name that closed the module's opening
 * comment once ran as code), so the name and description go only into SKILL.md, as YAML data.
 */
const ENTRY = `/** A starting point written by skill-creator: its name and description are in SKILL.md. Replace the body with the real work. */
export default async function run({ input, message, writeFile, result }) {
  const words = input.trim().split(/\\s+/).filter(Boolean).length;
  message(\`Received \${words} words.\`);
  await writeFile('echo.txt', input);
  result('echo.txt');
}
`;

export function skillBundle(description) {
  const text = description.trim();
  const [firstLine] = text.split('\n');
  const name =
    firstLine
      .replace(/[.!?]+$/, '')
      .slice(0, 80)
      .trim() || 'New skill';
  const frontMatter = stringify({
    name,
    description: text.replace(/\s+/g, ' ').slice(0, 500),
    slug: slugOf(name),
    runtime: 'script',
    entry: 'main.mjs',
    price: 0,
  });
  const manifest = `---\n${frontMatter}---\n${text}\n`;
  return { name, slug: slugOf(name), manifest, entry: ENTRY };
}

export default async function run({ input, toolUse, writeFile, message, result }) {
  toolUse('scaffold', 'Writing the skill bundle');
  const bundle = skillBundle(input);
  await writeFile('skill/SKILL.md', bundle.manifest);
  await writeFile('skill/main.mjs', bundle.entry);
  message(`Created the skill "${bundle.name}" (slug ${bundle.slug}) in skill/: SKILL.md and main.mjs.`);
  result(`skill/${bundle.slug}`);
}
