import { describe, expect, it } from 'vitest';
import { mcpInterfaceOf, originAllowed } from '../../src/mcp/access.js';

describe('the interface an MCP run is recorded with', () => {
  it.each([
    [undefined, 'mcp'],
    ['', 'mcp'],
    ['Claude Code', 'mcp-claude-code'],
    ['  VS Code / Copilot (1.2) ', 'mcp-vs-code-copilot-1-2'],
    ['Éditeur ✨', 'mcp-diteur'],
    ['---', 'mcp'],
    ['x'.repeat(100), `mcp-${'x'.repeat(60)}`],
  ])('%j -> %s', (name, expected) => {
    expect(mcpInterfaceOf(name)).toBe(expected);
  });
});

describe('the Origin MCP takes', () => {
  const publicUrl = 'https://skillet.example.test';
  it.each([
    [undefined, true],
    ['https://skillet.example.test', true],
    ['https://SKILLET.example.test:443', true],
    ['http://skillet.example.test', false],
    ['https://skillet.example.test:8443', false],
    ['https://evil.example', false],
    ['null', false],
    ['not a url', false],
  ])('%j -> %s', (origin, allowed) => {
    expect(originAllowed(publicUrl, origin)).toBe(allowed);
  });
});
