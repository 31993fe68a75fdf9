import { describe, expect, it } from 'vitest';
import { ManifestError, parseSkillManifest } from '../../src/skills/manifest.js';

describe('a SKILL.md', () => {
  it('whose front matter is not YAML is a bad manifest, not a crash', () => {
    const source = '---\nname: A\ndescription: one: two: three\n---\nbody';
    expect(() => parseSkillManifest(source, 'a')).toThrow(ManifestError);
    expect(() => parseSkillManifest(source, 'a')).toThrow(/not valid YAML/);
  });
});
