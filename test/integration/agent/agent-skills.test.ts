import { describe, expect } from 'vitest';
import { eventOf, infoOf, runAgent, stopReasonOf, withAgentServer } from '../../helpers/agent.js';
import { bytesOf, unzip } from '../../helpers/artifacts.js';
import { session, signUp } from '../../helpers/factories.js';

/** The built-in agent skills, each driven through a whole run by a scripted model. */
const it = withAgentServer();

const toolUse = (id: string, name: string, input: Record<string, unknown>) => ({
  kind: 'reply' as const,
  blocks: [{ type: 'tool_use' as const, id, name, input }],
});
const answer = (text: string) => ({ kind: 'reply' as const, blocks: [{ type: 'text' as const, text }] });

describe('the built-in agent skills', () => {
  it('report-writer reads its structure guide and delivers report.md', async ({ api, anthropic, person }) => {
    const before = anthropic.requests.length;
    const report = '# Q3 results\n\n## Summary\nRevenue grew 8%.\n';
    anthropic.plan(
      toolUse('r1', 'read_file', { path: 'references/report-structure.md' }),
      toolUse('r2', 'write_file', { path: 'report.md', content: report }),
      answer('The report covers Q3 revenue.'),
    );
    const events = await runAgent(api, person, 'report-writer', 'Q3: revenue +8%');
    expect(stopReasonOf(events)).toBe('end_turn');
    expect(anthropic.requests[before]?.body.tools).toEqual([
      expect.objectContaining({ name: 'list_files' }),
      expect.objectContaining({ name: 'read_file' }),
      expect.objectContaining({ name: 'write_file' }),
    ]);
    expect(JSON.stringify(anthropic.requests[before + 1]?.body.messages)).toContain('Open questions');
    const artifactId = String(eventOf(events, 'execution.result')?.payload.artifactId);
    const file = await api.get(`/api/v1/artifacts/${artifactId}/file/report.md`, { headers: session(person) });
    expect(file.text).toBe(report);
  });

  it('site-builder writes a site of several files, delivered as one bundle', async ({ api, anthropic, person, server }) => {
    anthropic.plan(
      toolUse('s1', 'read_file', { path: 'assets/base.css' }),
      toolUse('s2', 'write_file', { path: 'index.html', content: '<!doctype html><title>Bakery</title>' }),
      toolUse('s3', 'write_file', { path: 'menu.html', content: '<!doctype html><title>Menu</title>' }),
      toolUse('s4', 'write_file', { path: 'style.css', content: ':root { --accent: #a0522d; }' }),
      answer('Made index.html and menu.html.'),
    );
    const events = await runAgent(api, person, 'site-builder', 'A bakery with a menu page');
    const artifactId = String(eventOf(events, 'execution.result')?.payload.artifactId);
    const zip = await bytesOf(`${server.url}/api/v1/artifacts/${artifactId}/download`, session(person));
    expect(zip.status).toBe(200);
    expect([...(await unzip(zip.body)).keys()].sort()).toEqual(['index.html', 'menu.html', 'style.css']);
  });

  it('data-summariser has its script compute the figures, here on an OpenAI-compatible server', async ({
    api,
    openai,
    person,
  }) => {
    const stored = await api.put('/api/v1/byok', { body: { key: `sk-own-${'e'.repeat(24)}` }, headers: session(person) });
    expect(stored.status).toBe(200);
    const before = openai.requests.length;
    const csv = 'city,population\nOslo,709037\nBergen,291940\nTromso,\n';
    openai.plan(
      {
        kind: 'reply',
        blocks: [{ type: 'tool_use', id: 'd1', name: 'run_script', input: { path: 'scripts/summarise.mjs', stdin: csv } }],
      },
      answer('Oslo is more than twice the size of Bergen.'),
    );
    const events = await runAgent(api, person, 'data-summariser', csv);
    expect(stopReasonOf(events)).toBe('end_turn');
    const toolMessage = (openai.requests[before + 1]?.body.messages as { role: string; content: string }[] | undefined)?.find(
      (message) => message.role === 'tool',
    );
    expect(toolMessage?.content).toContain('exit code: 0');
    expect(toolMessage?.content).toContain('"rows": 3');
    expect(toolMessage?.content).toContain('"median": 500488.5');
    expect(toolMessage?.content).toContain('"missing": 1');
  });
});

describe('the caps on a run', () => {
  it('ends a run that reaches AGENT_MAX_TURNS or AGENT_MAX_RUN_TOKENS with error, naming the setting', async ({
    anthropic,
    ownServer,
  }) => {
    const turns = await ownServer({ AGENT_MAX_TURNS: '2' });
    const first = await signUp(turns);
    anthropic.plan(toolUse('a', 'list_files', {}), toolUse('b', 'list_files', {}));
    const capped = await runAgent(turns, first, 'agent-plain', 'loop');
    expect(stopReasonOf(capped)).toBe('error');
    expect(infoOf(capped)).toMatch(/AGENT_MAX_TURNS/);

    const tokens = await ownServer({ AGENT_MAX_RUN_TOKENS: '1000' });
    const second = await signUp(tokens);
    anthropic.plan({ ...toolUse('c', 'list_files', {}), usage: { input: 900, output: 100 } });
    const spent = await runAgent(tokens, second, 'agent-plain', 'loop');
    expect(stopReasonOf(spent)).toBe('error');
    expect(infoOf(spent)).toMatch(/AGENT_MAX_RUN_TOKENS/);
  });
});
