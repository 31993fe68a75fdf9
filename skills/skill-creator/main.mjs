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
  const entry = `/** ${name.replace(/\*\//g, '')}: a starting point; replace the body with the real work. */
export default async function run({ input, message, writeFile, result }) {
  const words = input.trim().split(/\\s+/).filter(Boolean).length;
  message(\`Received \${words} words.\`);
  await writeFile('echo.txt', input);
  result('echo.txt');
}
`;
  return { name, slug: slugOf(name), manifest, entry };
}

export default async function run({ input, toolUse, writeFile, message, result }) {
  toolUse('scaffold', 'Writing the skill bundle');
  const bundle = skillBundle(input);
  await writeFile('skill/SKILL.md', bundle.manifest);
  await writeFile('skill/main.mjs', bundle.entry);
  message(`Created the skill "${bundle.name}" (slug ${bundle.slug}) in skill/: SKILL.md and main.mjs.`);
  result(`skill/${bundle.slug}`);
}
