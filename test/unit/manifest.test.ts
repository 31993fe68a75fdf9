import { describe, expect, it } from 'vitest';
import { BUILTIN_SKILLS_DIR } from '../../src/paths.js';
import { takesFiles } from '../../src/runtime/input-files.js';
import { ManifestError, parseSkillManifest } from '../../src/skills/manifest.js';
import { loadSkillRegistry } from '../../src/skills/registry.js';

describe('a SKILL.md', () => {
  it('whose front matter is not YAML is a bad manifest, not a crash', () => {
    const source = '---\nname: A\ndescription: one: two: three\n---\nbody';
    expect(() => parseSkillManifest(source, 'a')).toThrow(ManifestError);
    expect(() => parseSkillManifest(source, 'a')).toThrow(/not valid YAML/);
  });
});

describe('an agent skill', () => {
  it('is any SKILL.md in the open format: only name and description, or its optional keys', () => {
    const open = parseSkillManifest(
      '---\nname: pdf-tools\ndescription: Works with PDFs.\nlicense: MIT\ncompatibility: needs python3\nmetadata:\n  version: "1.0"\nallowed-tools: read_file run_script\n---\n# Steps\n',
      'pdf-tools',
    );
    expect(open).toMatchObject({
      slug: 'pdf-tools',
      runtime: 'agent',
      entry: null,
      price: 0,
      models: {},
      allowedTools: ['read_file', 'run_script'],
      body: '# Steps',
    });
    expect(parseSkillManifest('---\nname: x\ndescription: y\nallowed-tools: [write_file]\n---\n', 'x').allowedTools).toEqual([
      'write_file',
    ]);
  });

  it('names its model per provider; a script skill still needs its entry', () => {
    const claude = parseSkillManifest('---\nname: a\ndescription: b\nmodel: claude-haiku-4-5\n---\n', 'a');
    expect(claude.models).toEqual({ anthropic: 'claude-haiku-4-5' });
    const local = parseSkillManifest('---\nname: a\ndescription: b\nmodel: llama3.1:8b\n---\n', 'a');
    expect(local.models).toEqual({ openai: 'llama3.1:8b' });
    const both = parseSkillManifest('---\nname: a\ndescription: b\nmodels:\n  anthropic: c1\n  openai: o1\n---\n', 'a');
    expect(both.models).toEqual({ anthropic: 'c1', openai: 'o1' });
    expect(() => parseSkillManifest('---\nname: a\ndescription: b\nmodels:\n  gemini: g\n---\n', 'a')).toThrow(ManifestError);
    expect(() => parseSkillManifest('---\nname: a\ndescription: b\nmodel: "a b"\n---\n', 'a')).toThrow(ManifestError);
    expect(() => parseSkillManifest('---\nname: a\ndescription: b\nruntime: script\n---\n', 'a')).toThrow(/entry/);
    expect(parseSkillManifest('---\nname: a\ndescription: b\nentry: main.mjs\n---\n', 'a').runtime).toBe('script');
  });
});

describe('the input a skill expects', () => {
  it('is named by input and default-input, and is null when absent', () => {
    const named = parseSkillManifest(
      '---\nname: a\ndescription: b\ninput: A CSV table.\ndefault-input: |\n  x,y\n  1,2\n---\n',
      'a',
    );
    expect(named).toMatchObject({ inputHint: 'A CSV table.', defaultInput: 'x,y\n1,2' });
    expect(parseSkillManifest('---\nname: a\ndescription: b\n---\n', 'a')).toMatchObject({ inputHint: null, defaultInput: null });
  });

  it('refuses a default that is not text, is empty or is larger than 4 KiB, and a hint over 500 characters', () => {
    const manifest = (extra: string) => `---\nname: a\ndescription: b\n${extra}\n---\n`;
    expect(() => parseSkillManifest(manifest('default-input: [1, 2]'), 'a')).toThrow(/default-input must be a non-empty string/);
    expect(() => parseSkillManifest(manifest('default-input: "  "'), 'a')).toThrow(ManifestError);
    expect(() => parseSkillManifest(manifest(`default-input: "${'é'.repeat(2049)}"`), 'a')).toThrow(/at most 4096 bytes/);
    expect(() => parseSkillManifest(manifest(`input: "${'x'.repeat(501)}"`), 'a')).toThrow(/at most 500 characters/);
  });

  it('is declared by every built-in skill', async () => {
    const { registry, problems } = await loadSkillRegistry({ builtIn: BUILTIN_SKILLS_DIR });
    expect(problems).toEqual([]);
    for (const skill of registry.list()) {
      expect(skill.inputHint, skill.slug).toEqual(expect.any(String));
      expect(skill.defaultInput, skill.slug).toEqual(expect.any(String));
    }
  });
});

describe('whether a skill reads files', () => {
  const manifest = (extra: string) => parseSkillManifest(`---\nname: a\ndescription: b\n${extra}\n---\n`, 'a');

  it('is what input-files says, and otherwise whether the skill works on the computer', () => {
    expect(takesFiles(manifest('entry: main.mjs\ninput-files: true'))).toBe(true);
    expect(takesFiles(manifest('input-files: false'))).toBe(false);
    // Unsaid: a script sees only its input text, and so does an agent with only the narrow file tools.
    expect(takesFiles(manifest('entry: main.mjs'))).toBe(false);
    expect(takesFiles(manifest('allowed-tools: list_files read_file write_file'))).toBe(false);
    expect(takesFiles(manifest('allowed-tools: Bash(python:*) Read'))).toBe(true);
    expect(takesFiles(manifest('license: MIT'))).toBe(true);
    expect(() => manifest('input-files: "yes"')).toThrow(/input-files must be true or false/);
  });

  it('is said by the built-in skills that read files, and the rest are taken at their kind', async () => {
    const { registry } = await loadSkillRegistry({ builtIn: BUILTIN_SKILLS_DIR });
    const reading = registry
      .list()
      .filter(takesFiles)
      .map((skill) => skill.slug);
    expect(reading.sort()).toEqual(['chart', 'csv-chart', 'pdf', 'xlsx']);
  });
});
