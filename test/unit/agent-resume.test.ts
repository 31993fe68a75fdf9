import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-load.js';
import type { ModelClient, ModelRequest, ToolResult, Turn } from '../../src/models/conversation.js';
import { runAgent } from '../../src/runtime/agent/agent-loop.js';
import type { JournalStep, RunJournal } from '../../src/runtime/journal-steps.js';
import type { RunAccount, RunMessage } from '../../src/runtime/runtime.js';
import { BUILT_INS_ONLY } from '../../src/sandbox/sandbox.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillet-agent-resume-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const usage = { input_tokens: 10, output_tokens: 5 };
const fetchCall = { type: 'tool_call' as const, id: 'fetch-1', name: 'web_fetch', input: { url: 'https://example.org/' } };

/** A model that finishes at once, keeping what each call was sent. */
function recordingModel(): ModelClient & { sent: Turn[][] } {
  const sent: Turn[][] = [];
  return {
    provider: 'anthropic',
    sent,
    async call(request: ModelRequest) {
      sent.push(structuredClone(request.turns));
      return { content: [{ type: 'text', text: 'Done.' }], stop: 'end_turn', usage };
    },
  };
}

const freeAccount: RunAccount = {
  ownModelKey: async () => undefined,
  isCharged: async () => false,
  spendable: async () => 0,
  hold: async () => undefined,
  release: async () => undefined,
  charge: async () => 0,
};

async function resume(steps: JournalStep[], client: ModelClient) {
  const answered: ToolResult[] = [];
  const messages: RunMessage[] = [];
  const journal: RunJournal = {
    steps,
    resumedFrom: { pauseSeconds: 3 },
    restore: async () => undefined,
    toolStarted: async () => undefined,
    toolAnswered: async (result) => {
      answered.push(result);
    },
  };
  const config = await loadConfig({ DATA_DIR: dir });
  const result = await runAgent({
    client,
    route: {
      provider: 'anthropic',
      model: 'claude-test',
      ownKey: true,
      endpoint: { apiKey: 'k', baseUrl: 'http://127.0.0.1:9', maxRetries: 0, timeoutMs: 1000 },
    },
    settings: config.agent,
    system: 'Test.',
    input: 'Fetch it.',
    tools: [],
    toolContext: {
      skillDir: dir,
      outputDir: dir,
      allowed: ['web_fetch'],
      sandbox: BUILT_INS_ONLY,
      limits: config.executions,
      builtIn: true,
      signal: new AbortController().signal,
    },
    account: freeAccount,
    journal,
    outsideEffects: ['web_fetch'],
    folders: () => ({ output: dir }),
    signal: new AbortController().signal,
    onMessage: async (message) => {
      messages.push(message);
    },
  });
  return { result, answered, messages };
}

describe('an agent run resumed from its journal', () => {
  it('does not repeat a call with outside effects that had started: the model hears it may have happened', async () => {
    const model = recordingModel();
    const { result, answered, messages } = await resume(
      [
        { kind: 'model_reply', content: [fetchCall], usage },
        { kind: 'tool_started', callId: 'fetch-1', name: 'web_fetch' },
      ],
      model,
    );
    expect(result.outcome).toEqual({ kind: 'completed' });
    expect(answered).toEqual([
      {
        callId: 'fetch-1',
        name: 'web_fetch',
        output: expect.stringMatching(/^This call was under way when the run moved to another worker: it may have happened/),
        isError: true,
      },
    ]);
    expect(model.sent).toEqual([
      [
        { role: 'user', text: 'Fetch it.' },
        { role: 'assistant', content: [fetchCall] },
        { role: 'tool', results: answered },
      ],
    ]);
    const infos = messages.flatMap((message) => (message.type === 'info' ? [message.message] : []));
    expect(infos[0]).toMatch(
      /^Resumed on another worker after 3 s: the worker running this run was lost\. The model call it had completed was kept/,
    );
    expect(infos[1]).toMatch(/may have happened, so it was not repeated\.$/);
    // Both calls' tokens count toward the run's, the journaled one included.
    expect(result.tokenUsage).toEqual({ input_tokens: 20, output_tokens: 10 });
  });

  it('ends at once, completed, when the lost attempt had its last answer', async () => {
    const model = recordingModel();
    const { result } = await resume([{ kind: 'model_reply', content: [{ type: 'text', text: 'All done here.' }], usage }], model);
    expect(result).toMatchObject({ outcome: { kind: 'completed' }, summary: 'All done here.' });
    expect(model.sent).toEqual([]);
  });
});
