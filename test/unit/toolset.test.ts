import { describe, expect, it } from 'vitest';
import { chooseToolset } from '../../src/runtime/computer/toolset.js';
import { parseSkillManifest } from '../../src/skills/manifest.js';

describe('the tools a skill gets', () => {
  it('gives the whole computer to a skill that names none, web_fetch only when hosts are allowed', () => {
    expect(chooseToolset(undefined, false)).toEqual({
      names: ['bash', 'read', 'write', 'edit', 'glob', 'grep'],
      needsComputer: true,
      bashPrefixes: [],
    });
    expect(chooseToolset(undefined, true).names).toContain('web_fetch');
  });

  it("understands the open standard's spellings, including a scoped Bash", () => {
    expect(chooseToolset(['Read', 'Grep', 'Bash(python:*)', 'Bash(python3:*)'], false)).toEqual({
      names: ['bash', 'read', 'grep'],
      needsComputer: true,
      bashPrefixes: ['python', 'python3'],
    });
    // A whole Bash beside a scoped one leaves bash unscoped.
    expect(chooseToolset(['Bash(git:*)', 'Bash'], false).bashPrefixes).toEqual([]);
    expect(chooseToolset(['WebFetch', 'Read'], false).names).toEqual(['read']);
  });

  it('keeps the §9 file tools for skills that name only them, without the computer', () => {
    expect(chooseToolset(['list_files', 'read_file', 'write_file', 'Shell', 'run_script'], false)).toEqual({
      names: ['list_files', 'read_file', 'write_file', 'run_script'],
      needsComputer: false,
      bashPrefixes: [],
    });
    expect(chooseToolset([], false)).toEqual({ names: [], needsComputer: false, bashPrefixes: [] });
  });

  it('reads allowed-tools with spaces inside a scoped name, as a string or a list', () => {
    const manifest = (tools: string) =>
      parseSkillManifest(`---\nname: s\ndescription: d\nallowed-tools: ${tools}\n---\nbody\n`, 's').allowedTools;
    expect(manifest('Read Bash(git status:*) Grep')).toEqual(['Read', 'Bash(git status:*)', 'Grep']);
    expect(manifest('"Read, Write"')).toEqual(['Read', 'Write']);
    expect(manifest('[Read, "Bash(python:*)"]')).toEqual(['Read', 'Bash(python:*)']);
  });
});
