import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, onTestFinished } from 'vitest';
import type { SkillItem } from '../../../src/sdk/types.js';
import { bytesOf } from '../../helpers/artifacts.js';
import { balanceOf, licensedKey } from '../../helpers/billing.js';
import { sendMessage, streamOf } from '../../helpers/executions.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import { uploadRaw } from '../../helpers/files.js';
import { withServer } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';
import type { TestServer } from '../../helpers/server.js';

/**
 * Whether a skill reads files (issue 50, item 9): a run with files of one that does not is
 * refused before anything is stored or charged, over REST and MCP alike; csv-chart reads
 * the CSV it is given, and a file it cannot chart is its input's fault, charged as such.
 */

const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' }).extend(
  'person',
  ({ api }) => signUp(api),
);

const FILES_ONLY_INPUT = 'See the attached files';

async function executionCount(server: TestServer, person: TestUser): Promise<number> {
  const rows = await server.db.db
    .selectFrom('executions')
    .select('execution_id')
    .where('workspace_id', '=', person.user.personalWorkspaceId)
    .execute();
  return rows.length;
}

/** Creates a run of `skill` with the file, starts it and waits for its end; its events and status. */
async function runWithFile(api: Client, person: TestUser, skill: string, fileId: string) {
  const created = await api.post<{ id: string }>('/api/v1/executions', {
    body: { skill_slug: skill, input: FILES_ONLY_INPUT, files: [{ fileId }] },
    headers: session(person),
  });
  expect(created.status, created.text).toBe(200);
  const stream = await streamOf(api, person, created.body.id);
  expect((await sendMessage(api, person, created.body.id, FILES_ONLY_INPUT)).status).toBe(200);
  await stream.ended;
  const status = await api.get<{ status: string }>(`/api/v1/executions/${created.body.id}/status`, { headers: session(person) });
  return { events: stream.events, status: status.body.status };
}

describe('skills that do and do not read files', () => {
  it('says in the skill list which skills take files', async ({ api, person }) => {
    const listed = await api.get<{ items: SkillItem[] }>('/api/v1/marketplace/skills?limit=100', { headers: session(person) });
    const takes = Object.fromEntries(listed.body.items.map((skill) => [skill.slug, skill.takesFiles]));
    // Said in SKILL.md (csv-chart, reads-uploads); a computer's agent skill by default (pdf);
    // a script skill, or an agent skill with only the narrow file tools, does not see files.
    expect(takes).toMatchObject({
      'csv-chart': true,
      'reads-uploads': true,
      pdf: true,
      'text-stats': false,
      'echo-summary': false,
      'report-writer': false,
    });
  });

  it('refuses a run with files of a skill that does not read them, before anything is created or charged', async ({
    server,
    api,
    person,
  }) => {
    const auth = session(person);
    const file = await uploadRaw(server.url, auth, 'notes.txt', 'Some notes to count.');
    const [before, balance] = [await executionCount(server, person), (await balanceOf(api, person)).balance];
    const refused = await api.post('/api/v1/executions', {
      body: { skill_slug: 'text-stats', input: FILES_ONLY_INPUT, files: [{ fileId: file.body.id }] },
      headers: auth,
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: {
        code: 'INVALID_INPUT',
        message:
          'Text statistics (text-stats) does not read files, so it cannot be run with any. Give it what it should work on as its input text instead, or choose a skill that reads files.',
      },
    });
    expect(await executionCount(server, person)).toBe(before);
    expect((await balanceOf(api, person)).balance).toBe(balance);
    // Not attached to anything: the file still expires.
    const detail = await api.get<{ expiresAt: string | null }>(`/api/v1/files/${file.body.id}`, { headers: auth });
    expect(detail.body.expiresAt).not.toBeNull();
  });

  it('refuses the same over MCP, and keeps none of the inline files sent for it', async ({ server, api }) => {
    const { person, key } = await licensedKey(server, api);
    const client = new McpClient({ name: 'Skill Files Test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }),
    );
    onTestFinished(() => client.close());
    const answer = await client.callTool({
      name: 'run_skill',
      arguments: {
        skill_slug: 'text-stats',
        input: FILES_ONLY_INPUT,
        inline_files: [{ filename: 'notes.txt', contentBase64: Buffer.from('Some notes.').toString('base64') }],
      },
    });
    expect(answer.isError).toBe(true);
    const blocks = Array.isArray(answer.content) ? answer.content : [];
    expect(blocks.map((block) => (block.type === 'text' ? block.text : '')).join('\n')).toContain(
      'Text statistics (text-stats) does not read files',
    );
    const kept = await server.db.db
      .selectFrom('input_files')
      .select('id')
      .where('workspace_id', '=', person.user.personalWorkspaceId)
      .execute();
    expect(kept).toEqual([]);
    expect(await executionCount(server, person)).toBe(0);
  });

  it('csv-chart charts the CSV file it is given, for its price', async ({ server, api, person }) => {
    const auth = session(person);
    const csv = 'city,population\nLisbon,545000\nPorto,232000\nBraga,193000\n';
    const file = await uploadRaw(server.url, auth, 'data.csv', csv);
    const balance = (await balanceOf(api, person)).balance;
    const { events, status } = await runWithFile(api, person, 'csv-chart', file.body.id);
    expect(status, JSON.stringify(events.slice(-3))).toBe('completed');
    const said = events.filter((event) => event.type === 'agent.message').map((event) => JSON.stringify(event.payload));
    expect(said.join('\n')).toContain('Charted 3 rows of \\"population\\" of data.csv to chart.svg.');
    const artifactId = events.find((event) => event.type === 'execution.result')?.payload.artifactId as string;
    const chart = await bytesOf(`${server.url}/api/v1/artifacts/${artifactId}/raw`, auth);
    expect(chart.body.toString()).toContain('>Porto</text>');
    expect((await balanceOf(api, person)).balance).toBe(balance - 1);
  });

  it('csv-chart given a file it cannot chart fails saying why, and its price is kept: the fault is its input', async ({
    server,
    api,
    person,
  }) => {
    const auth = session(person);
    const file = await uploadRaw(server.url, auth, 'notes.txt', 'Not a table at all.');
    const balance = (await balanceOf(api, person)).balance;
    const { events, status } = await runWithFile(api, person, 'csv-chart', file.body.id);
    expect(status).toBe('failed');
    const info = events.find((event) => event.type === 'agent.info');
    expect(String(info?.payload.message)).toContain(
      'none of the attached files is a .csv file (notes.txt); attach the CSV to chart, or give it as the input',
    );
    expect((await balanceOf(api, person)).balance).toBe(balance - 1);
  });
});
