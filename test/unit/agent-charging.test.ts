import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-load.js';
import type { ContentBlock, ModelClient } from '../../src/models/conversation.js';
import { runAgent } from '../../src/runtime/agent/agent-loop.js';
import type { JournalStep, RunJournal } from '../../src/runtime/journal-steps.js';
import type { RunAccount } from '../../src/runtime/runtime.js';
import { BUILT_INS_ONLY } from '../../src/sandbox/sandbox.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillet-agent-charging-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const usage = { input_tokens: 10, output_tokens: 5 };
const listCall: ContentBlock = { type: 'tool_call', id: 'list-1', name: 'list_files', input: {} };
const fetchCall: ContentBlock = { type: 'tool_call', id: 'fetch-1', name: 'web_fetch', input: { url: 'https://example.org/' } };

/** A model that answers with each of `answers` in turn, counting its calls. */
function scriptedModel(...answers: ContentBlock[][]): ModelClient & { calls: number } {
  const model = {
    provider: 'anthropic' as const,
    calls: 0,
    async call() {
      const content = answers[model.calls] ?? [{ type: 'text' as const, text: 'Done.' }];
      model.calls += 1;
      return { content, stop: 'end_turn' as const, usage };
    },
  };
  return model;
}

/**
 * A paying account whose charges take `chargeMs` to commit and report `short` Ds they could
 * not take; everything the loop does to it and to the journal, in order.
 */
function slowAccount(chargeMs: number, short = 0, options: { refuseHoldsWhileCharging?: boolean } = {}) {
  const log: string[] = [];
  let charging = 0;
  const account: RunAccount = {
    ownModelKey: async () => undefined,
    isCharged: async () => true,
    spendable: async () => 1000,
    hold: async () => {
      // As PostgreSQL may: the previous call's hold still counts until its charge lets it go.
      if (options.refuseHoldsWhileCharging && charging > 0) {
        log.push('hold refused');
        return undefined;
      }
      log.push('hold');
      return 'hold-1';
    },
    release: async () => {
      log.push('release');
    },
    charge: async (_due, _hold, step?: JournalStep) => {
      log.push(`charge started (${step?.kind})`);
      charging += 1;
      await new Promise((resolve) => setTimeout(resolve, chargeMs));
      charging -= 1;
      log.push('charge committed');
      return short;
    },
  };
  const journal: RunJournal = {
    steps: [],
    restore: async () => undefined,
    toolStarted: async (callId) => {
      log.push(`started ${callId}`);
    },
    toolAnswered: async (result) => {
      log.push(`answered ${result.callId}`);
    },
  };
  return { account, journal, log };
}

async function run(client: ModelClient, parts: ReturnType<typeof slowAccount>, journaled = true) {
  const config = await loadConfig({ DATA_DIR: dir, MODEL_PRICES: JSON.stringify({ 'claude-test': { input: 1, output: 1 } }) });
  return runAgent({
    client,
    route: {
      provider: 'anthropic',
      model: 'claude-test',
      ownKey: false,
      endpoint: { apiKey: 'k', baseUrl: 'http://127.0.0.1:9', maxRetries: 0, timeoutMs: 1000 },
    },
    settings: config.agent,
    system: 'Test.',
    input: 'List, then fetch.',
    tools: [],
    toolContext: {
      skillDir: dir,
      outputDir: dir,
      allowed: ['list_files', 'web_fetch'],
      sandbox: BUILT_INS_ONLY,
      limits: config.executions,
      builtIn: true,
      signal: new AbortController().signal,
    },
    account: parts.account,
    ...(journaled ? { journal: parts.journal } : {}),
    outsideEffects: ['web_fetch'],
    folders: () => ({ output: dir }),
    signal: new AbortController().signal,
    onMessage: async () => undefined,
  });
}

describe("an agent run's charges, committing while the call's tools run", () => {
  it('journals no tool of a call before the call itself, and holds for the next call only after the charge', async () => {
    const parts = slowAccount(30);
    const result = await run(scriptedModel([listCall]), parts);
    expect(result.outcome).toEqual({ kind: 'completed' });
    expect(parts.log).toEqual([
      'hold',
      'charge started (model_reply)',
      'charge committed',
      'answered list-1',
      'hold',
      'charge started (model_reply)',
      'charge committed',
    ]);
  });

  it('starts no tool with outside effects once a charge could not be covered, and ends the run on it', async () => {
    const parts = slowAccount(10, 1);
    const model = scriptedModel([fetchCall]);
    const result = await run(model, parts);
    expect(result.outcome).toEqual({
      kind: 'limit_reached',
      reason: 'Out of credits: this run used the rest of your balance. Buy a credit pack to go on.',
    });
    // The next call's hold is asked for beside the charge, and let go when the charge fell short.
    expect(parts.log).toEqual(['hold', 'charge started (model_reply)', 'charge committed', 'hold', 'release']);
    expect(model.calls).toBe(1);
  });

  it('ends the run on a short charge after tools that stay inside, without calling the model again', async () => {
    for (const journaled of [true, false]) {
      const parts = slowAccount(10, 1);
      const model = scriptedModel([listCall]);
      const result = await run(model, parts, journaled);
      expect(result.outcome.kind).toBe('limit_reached');
      expect(model.calls).toBe(1);
      expect(parts.log.filter((entry) => entry === 'hold')).toHaveLength(2);
      expect(parts.log.at(-1)).toBe('release');
    }
  });

  it("takes the next call's hold while an unjournaled run's charge commits, and calls only once it is in", async () => {
    const parts = slowAccount(30);
    const model = scriptedModel([listCall]);
    const result = await run(model, parts, false);
    expect(result.outcome).toEqual({ kind: 'completed' });
    expect(parts.log).toEqual([
      'hold',
      'charge started (model_reply)',
      'hold',
      'charge committed',
      'charge started (model_reply)',
      'charge committed',
    ]);
    expect(model.calls).toBe(2);
  });

  it('asks again for a hold refused before the charge let the previous one go', async () => {
    const parts = slowAccount(30, 0, { refuseHoldsWhileCharging: true });
    const model = scriptedModel([listCall]);
    const result = await run(model, parts, false);
    expect(result.outcome).toEqual({ kind: 'completed' });
    expect(parts.log).toEqual([
      'hold',
      'charge started (model_reply)',
      'hold refused',
      'charge committed',
      'hold',
      'charge started (model_reply)',
      'charge committed',
    ]);
  });

  it('returns only once the last charge is in', async () => {
    const parts = slowAccount(40);
    await run(scriptedModel(), parts);
    expect(parts.log.at(-1)).toBe('charge committed');
  });
});
