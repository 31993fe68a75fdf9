import { describe, expect } from 'vitest';
import { runAgent, stopReasonOf, withAgentServer } from '../../helpers/agent.js';
import { runToEnd } from '../../helpers/executions.js';
import { session, signUp } from '../../helpers/factories.js';

/**
 * Skills run on the Node that runs the server, whichever LTS that is (issue 25): CI runs
 * this file on Node 20 and again on Node 24, whose permission flag is named differently.
 */
const it = withAgentServer();

const nodeVersion = `Node ${process.versions.node}`;

describe(`script skills on the running Node (${nodeVersion})`, () => {
  it('a script skill runs to end_turn, with its messages and result', async ({ api }) => {
    const person = await signUp(api);
    const { stream } = await runToEnd(api, person, 'ticker', '2 5');
    const texts = stream.events.map((event) => `${event.type} ${JSON.stringify(event.payload)}`);
    expect(texts.join('\n'), `${nodeVersion} refused the skill's command line`).not.toMatch(/bad option/);
    expect(stream.events.at(-1)?.payload, texts.join('\n')).toEqual({ stop_reason: { type: 'end_turn' } });
    expect(stream.events.filter((event) => event.type === 'agent.message').map((event) => event.payload)).toEqual([
      { content: [{ type: 'text', text: 'tick 1 of 2' }] },
      { content: [{ type: 'text', text: 'tick 2 of 2' }] },
    ]);
  });

  it("an agent skill's Node script runs under the permission model and exits 0", async ({ api, openai }) => {
    const person = await signUp(api);
    // The person's own key: the run spends none of their (few) free credits.
    const stored = await api.put('/api/v1/byok', { body: { key: `sk-own-${'n'.repeat(24)}` }, headers: session(person) });
    expect(stored.status).toBe(200);
    const before = openai.requests.length;
    const csv = 'city,population\nOslo,709037\nBergen,291940\n';
    openai.plan(
      {
        kind: 'reply',
        blocks: [{ type: 'tool_use', id: 'n1', name: 'run_script', input: { path: 'scripts/summarise.mjs', stdin: csv } }],
      },
      { kind: 'reply', blocks: [{ type: 'text', text: 'Two cities.' }] },
    );
    const events = await runAgent(api, person, 'data-summariser', csv);
    const toolResult = JSON.stringify(openai.requests[before + 1]?.body.messages) ?? JSON.stringify(events);
    expect(toolResult, `${nodeVersion} refused the script's command line`).not.toMatch(/bad option/);
    expect(toolResult, toolResult).toContain('exit code: 0');
    expect(toolResult).toContain('\\"rows\\": 2');
    expect(stopReasonOf(events)).toBe('end_turn');
  });
});
