import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { skillTemplate } from '../../src/cli/skill-template.js';
import { GUIDE_DIR } from '../../src/docs/docs.routes.js';
import { parseSkillManifest } from '../../src/skills/manifest.js';

const run = promisify(execFile);

/** The guide's fenced examples of one language, in order. */
async function guideExamples(language: string): Promise<string[]> {
  const guide = await readFile(path.join(GUIDE_DIR, 'writing-skills.md'), 'utf8');
  return [...guide.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((match) => match[1] as string);
}

describe('the skill `skillet skills init` writes, as the guide shows it', () => {
  it('is the one the guide quotes, and its SKILL.md is one the server reads', async () => {
    const [skill, main] = skillTemplate('script', 'My skill');
    const [yaml, agentYaml] = await guideExamples('yaml');
    const [js] = await guideExamples('js');
    expect(yaml).toBe(skill?.content);
    expect(js).toBe(main?.content);
    expect(parseSkillManifest(skill?.content as string, 'my-skill')).toMatchObject({ runtime: 'script', entry: 'main.mjs' });
    expect(agentYaml).toBe(skillTemplate('agent', 'Haiku')[0]?.content);
    expect(parseSkillManifest(agentYaml as string, 'haiku')).toMatchObject({ runtime: 'agent' });
  });

  it("takes the guide's input-schema example", async () => {
    const contract = (await guideExamples('yaml')).find((example) => example.startsWith('input-schema:'));
    const manifest = parseSkillManifest(`---\nname: Ticks\ndescription: Ticks.\n${contract}---\n`, 'ticks');
    expect(manifest.inputSchema).toMatchObject({ type: 'string' });
    expect(manifest.inputInvalid).toBe('Give two whole numbers, such as "5 300".');
  });

  it('keeps a name with YAML in it a name', () => {
    const [skill] = skillTemplate('script', 'Mine: "quoted" # not a comment');
    expect(parseSkillManifest(skill?.content as string, 'mine').name).toBe('Mine: "quoted" # not a comment');
  });

  it("runs locally with the guide's try.mjs", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'skillet-try-'));
    try {
      for (const file of skillTemplate('script', 'My skill')) await writeFile(path.join(folder, file.path), file.content);
      const tryScript = (await guideExamples('js')).find((example) => example.includes("import run from './main.mjs'"));
      await writeFile(path.join(folder, 'try.mjs'), tryScript as string);
      const { stdout } = await run(process.execPath, ['try.mjs', 'some input'], { cwd: folder });
      expect(stdout).toBe('tool: Measuring the input\nmessage: Your input is 10 characters long.\nresult: 10 characters\n');
      expect(JSON.parse(await readFile(path.join(folder, 'out', 'result.json'), 'utf8'))).toEqual({
        input: 'some input',
        length: 10,
      });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
