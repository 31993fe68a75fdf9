import { describe, expect } from 'vitest';
import type { FakeAnthropic } from '../../fakes/anthropic.js';
import { HOUSE_ANTHROPIC_KEY, HOUSE_OPENAI_KEY, withAgentServer } from '../../helpers/agent.js';
import { BUBBLEWRAP_HERE, KERNEL_LIMITS_HERE } from '../../helpers/sandbox.js';
import { chat, recordsOf } from '../../helpers/thread-streams.js';

const it = withAgentServer();

const use = (id: string, name: string, input: Record<string, unknown>) => ({
  kind: 'reply' as const,
  blocks: [{ type: 'tool_use' as const, id, name, input }],
});
const done = { kind: 'reply' as const, blocks: [{ type: 'text' as const, text: 'It shouts.' }] };

/** The text of the tool result answering call `id`, as the model was sent it. */
function resultOf(anthropic: FakeAnthropic, from: number, id: string): string | undefined {
  for (const request of anthropic.requests.slice(from)) {
    for (const message of request.body.messages as { content: unknown }[]) {
      if (!Array.isArray(message.content)) continue;
      const found = (message.content as { type: string; tool_use_id?: string; content?: unknown }[]).find(
        (block) => block.type === 'tool_result' && block.tool_use_id === id,
      );
      if (found) return String(found.content);
    }
  }
  return undefined;
}

describe.runIf(BUBBLEWRAP_HERE && KERNEL_LIMITS_HERE)("the threads assistant's computer, over HTTP", () => {
  it("reads a skill's SKILL.md and runs its script with bash, in a sandbox holding none of the server's secrets", async ({
    server,
    anthropic,
    person,
  }) => {
    const before = anthropic.requests.length;
    anthropic.plan(
      use('md', 'bash', { command: 'head -2 /mnt/skills/shout-files/SKILL.md' }),
      use('run', 'bash', { command: 'python3 /mnt/skills/shout-files/scripts/shout.py "hello there"' }),
      use('env', 'bash', { command: 'env; ls / /mnt' }),
      done,
    );
    const stream = await chat(server.url, person, 'assistant', { message: 'What does shout-files do?' });
    expect(stream.status).toBe(200);
    const end = await stream.waitFor((frame) => frame.type === 'agent.turn_end');
    stream.close();
    expect(end).toMatchObject({ stopReason: 'end_turn' });
    expect(resultOf(anthropic, before, 'md')).toBe('---\nname: shout-files\nexit code 0');
    expect(resultOf(anthropic, before, 'run')).toBe('HELLO THERE!\nexit code 0');
    const seen = resultOf(anthropic, before, 'env') ?? '';
    expect(seen).toMatch(/exit code 0$/);
    for (const secret of [HOUSE_ANTHROPIC_KEY, HOUSE_OPENAI_KEY, 'DATA_DIR', 'skillet-test']) expect(seen).not.toContain(secret);
    const results = recordsOf(stream).filter((record) => record.type === 'tool.result');
    expect(results.map((record) => [record.tool, record.status, record.summary])).toEqual([
      ['bash', 'ok', 'Running head -2 /mnt/skills/shout-files/SKILL.md'],
      // A long command is cut in the thread's line, as agent runs' labels are.
      ['bash', 'ok', 'Running python3 /mnt/skills/shout-files/scripts/shout.py "hello the…'],
      ['bash', 'ok', 'Running env; ls / /mnt'],
    ]);
  });
});
