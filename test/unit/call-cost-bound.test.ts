import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContentBlock, ToolResult, Turn } from '../../src/models/conversation.js';
import { conversationBytes } from '../../src/runtime/agent/model-budget.js';

// Text with characters of one to four UTF-8 bytes, quotes, backslashes and control characters, which JSON escapes.
const text = fc.string({ unit: 'grapheme', maxLength: 40 });
const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text }),
  fc.record({
    type: fc.constant('tool_call' as const),
    id: fc.string({ minLength: 1, maxLength: 12 }),
    name: fc.constantFrom('list_files', 'bash', 'web_fetch'),
    input: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(text, fc.integer(), fc.boolean())),
  }),
);
const result: fc.Arbitrary<ToolResult> = fc.record({
  callId: fc.string({ minLength: 1, maxLength: 12 }),
  name: fc.constantFrom('list_files', 'bash'),
  output: text,
  isError: fc.boolean(),
});
const turn: fc.Arbitrary<Turn> = fc.oneof(
  fc.record({ role: fc.constant('user' as const), text }),
  fc.record({ role: fc.constant('assistant' as const), content: fc.array(block, { maxLength: 4 }) }),
  fc.record({ role: fc.constant('tool' as const), results: fc.array(result, { maxLength: 3 }) }),
);

describe("a model call's cost bound: the conversation's size", () => {
  it('is the UTF-8 length of the whole conversation as JSON, for any conversation', () => {
    fc.assert(
      fc.property(fc.array(turn, { maxLength: 12 }), (turns) => {
        expect(conversationBytes(turns)).toBe(Buffer.byteLength(JSON.stringify(turns)));
      }),
      { numRuns: 500 },
    );
  });

  it('stays exact as a conversation grows call after call, each turn measured once', () => {
    fc.assert(
      fc.property(fc.array(turn, { minLength: 1, maxLength: 20 }), (added) => {
        const turns: Turn[] = [];
        for (const next of added) {
          turns.push(next);
          expect(conversationBytes(turns)).toBe(Buffer.byteLength(JSON.stringify(turns)));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('counts an empty conversation as its brackets', () => {
    expect(conversationBytes([])).toBe(2);
  });
});
