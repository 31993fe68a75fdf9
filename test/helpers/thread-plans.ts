import { randomUUID } from 'node:crypto';

/** What the fake vendor answers a thread turn with: plain text, one token each way. */
export const reply = (text: string) => ({
  kind: 'reply' as const,
  blocks: [{ type: 'text' as const, text }],
  usage: { input: 1, output: 1 },
});

/** An answer that calls the threads' start_run tool, which asks the person for approval. */
export const startRunCall = (skill: string, input: string) => ({
  kind: 'reply' as const,
  blocks: [{ type: 'tool_use' as const, id: `call-${randomUUID().slice(0, 8)}`, name: 'start_run', input: { skill, input } }],
  usage: { input: 1, output: 1 },
});
