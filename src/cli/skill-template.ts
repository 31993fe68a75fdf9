/**
 * The folder `skillet skills init` writes: a skill that installs and runs as it is, small
 * enough to read in a minute, showing the parts a skill has (its SKILL.md, its input, what
 * it says, what it writes). docs/guide/writing-skills.md quotes the script skill's files.
 */
export type SkillKind = 'script' | 'agent';

export interface TemplateFile {
  path: string;
  content: string;
}

/** A name written into YAML as a quoted string, so any text a person types stays a name. */
const yamlText = (text: string) => JSON.stringify(text);

function scriptSkill(name: string): TemplateFile[] {
  return [
    {
      path: 'SKILL.md',
      content: `---
name: ${yamlText(name)}
description: Says how long its input is; writes the input and its length to result.json.
runtime: script
entry: main.mjs
price: 0
input: Any text.
default-input: Hello from my skill.
---
What the skill does, for the people who run it. Change main.mjs to make it do your work,
then send the new version with skillet skills update . (it keeps the slug).
`,
    },
    {
      path: 'main.mjs',
      content: `// Runs once per run, in the sandbox. See the guide: /docs/writing-skills on your server.
export default async function run({ input, message, toolUse, writeFile, result }) {
  toolUse('measure', 'Measuring the input');
  // Every file the run writes becomes part of its artifact.
  await writeFile('result.json', JSON.stringify({ input, length: input.length }, null, 2));
  message(\`Your input is \${input.length} characters long.\`);
  result(\`\${input.length} characters\`);
}
`,
    },
  ];
}

function agentSkill(name: string): TemplateFile[] {
  return [
    {
      path: 'SKILL.md',
      content: `---
name: ${yamlText(name)}
description: Writes a haiku about its input and saves it as haiku.txt.
runtime: agent
input: A subject for the haiku.
default-input: The first snow of the year.
---
Write a haiku (three lines: five, seven and five syllables) about the subject you are given.
Save it to /mnt/session/outputs/haiku.txt, then answer with the haiku itself.
`,
    },
  ];
}

export function skillTemplate(kind: SkillKind, name: string): TemplateFile[] {
  return kind === 'script' ? scriptSkill(name) : agentSkill(name);
}
