import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, onTestFinished } from 'vitest';
import { licensedKey } from '../../helpers/billing.js';
import type { TestUser } from '../../helpers/factories.js';
import { type InputFile, uploadRaw } from '../../helpers/files.js';
import { withServer } from '../../helpers/fixtures.js';
import type { TestServer } from '../../helpers/server.js';

const it = withServer({ RATE_LIMIT_EXECUTIONS_PER_MINUTE: '1000', RATE_LIMIT_MCP_PER_MINUTE: '1000' });

const FIVE_MB = 5 * 1024 * 1024;

async function mcpClient(server: TestServer, key: string) {
  const client = new Client({ name: 'Files Test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }),
  );
  onTestFinished(() => client.close());
  return client;
}

type Result = Awaited<ReturnType<Client['callTool']>>;

function textOf(result: Result): string {
  const blocks = Array.isArray(result.content) ? result.content : [];
  return blocks.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

const base64 = (text: string | Buffer) => Buffer.from(text).toString('base64');
const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');

async function filesOf(server: TestServer, person: TestUser) {
  return server.db.db.selectFrom('input_files').selectAll().where('workspace_id', '=', person.user.personalWorkspaceId).execute();
}

async function executionsOf(server: TestServer, person: TestUser) {
  return server.db.db
    .selectFrom('executions')
    .select('execution_id')
    .where('workspace_id', '=', person.user.personalWorkspaceId)
    .execute();
}

interface Report {
  files: { path: string; size: number; sha256: string }[];
}

/** What reads-uploads found in its uploads folder, from the report its run wrote. */
async function reportOf(server: TestServer, key: string, run: Result): Promise<Report> {
  const [artifactId] = (run.structuredContent as { artifactIds: string[] }).artifactIds;
  const reply = await fetch(`${server.url}/api/v1/artifacts/${artifactId}/raw`, { headers: { 'x-api-key': key } });
  expect(reply.status).toBe(200);
  return (await reply.json()) as Report;
}

describe('MCP upload_file', () => {
  it('is listed with its schema beside run_skill files and inline_files', async ({ server, api }) => {
    const { key } = await licensedKey(server, api);
    const { tools } = await (await mcpClient(server, key)).listTools();
    const upload = tools.find((tool) => tool.name === 'upload_file');
    expect(upload?.inputSchema).toMatchObject({ required: ['filename', 'contentBase64'] });
    const run = tools.find((tool) => tool.name === 'run_skill');
    expect(Object.keys(run?.inputSchema.properties ?? {})).toEqual(['skill_slug', 'input', 'files', 'inline_files']);
  });

  it('stores one file in the workspace, its name cleaned, and answers the record the files API shows', async ({
    server,
    api,
  }) => {
    const { key } = await licensedKey(server, api);
    const client = await mcpClient(server, key);
    const result = await client.callTool({
      name: 'upload_file',
      arguments: { filename: '../../etc/data.csv', contentBase64: base64('a,b\n1,2\n') },
    });
    expect(result.isError).toBeFalsy();
    const stored = result.structuredContent as unknown as InputFile;
    expect(stored).toEqual({
      id: expect.any(String),
      filename: 'data.csv',
      size: 8,
      mimeType: 'text/csv',
      sha256: sha256('a,b\n1,2\n'),
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    const detail = await fetch(`${server.url}/api/v1/files/${stored.id}`, { headers: { 'x-api-key': key } });
    expect(await detail.json()).toEqual(stored);
  });

  it('refuses what is not base64, and more than 5 MB, storing nothing; exactly 5 MB is stored', async ({ server, api }) => {
    const { person, key } = await licensedKey(server, api);
    const client = await mcpClient(server, key);
    for (const contentBase64 of ['not base64!', 'QUJD-REVG', 'QUJDR', '=QUJD']) {
      const refused = await client.callTool({ name: 'upload_file', arguments: { filename: 'x.txt', contentBase64 } });
      expect(refused.isError, contentBase64).toBe(true);
      expect(textOf(refused)).toMatch(/^INVALID_INPUT: The content of "x.txt" is not base64/);
    }
    const over = await client.callTool({
      name: 'upload_file',
      arguments: { filename: 'big.bin', contentBase64: Buffer.alloc(FIVE_MB + 1).toString('base64') },
    });
    expect(over.isError).toBe(true);
    expect(textOf(over)).toMatch(/^PAYLOAD_TOO_LARGE: .*5242880 bytes.*nothing was stored/);
    expect(await filesOf(server, person)).toEqual([]);

    const wrapped = await client.callTool({ name: 'upload_file', arguments: { filename: 'w.txt', contentBase64: 'QUJD\nREVG' } });
    expect(wrapped.structuredContent).toMatchObject({ size: 6, sha256: sha256('ABCDEF') });
    const exact = await client.callTool({
      name: 'upload_file',
      arguments: { filename: 'big.bin', contentBase64: Buffer.alloc(FIVE_MB, 7).toString('base64') },
    });
    expect(exact.isError).toBeFalsy();
    expect(exact.structuredContent).toMatchObject({ size: FIVE_MB, sha256: sha256(Buffer.alloc(FIVE_MB, 7)) });
  }, 60_000);
});

describe('MCP run_skill with files', () => {
  it('gives the run uploaded files by id and inline files, which it reads in ./uploads/', async ({ server, api }) => {
    const { person, key } = await licensedKey(server, api);
    const client = await mcpClient(server, key);
    const uploaded = await client.callTool({
      name: 'upload_file',
      arguments: { filename: 'notes.txt', contentBase64: base64('uploaded notes') },
    });
    const uploadedId = (uploaded.structuredContent as { id: string }).id;

    const run = await client.callTool({
      name: 'run_skill',
      arguments: {
        skill_slug: 'reads-uploads',
        input: 'Read the files',
        files: [uploadedId],
        inline_files: [
          { filename: 'notes.txt', contentBase64: base64('inline notes') },
          { filename: 'données.csv', contentBase64: base64('x,y\n') },
        ],
      },
    });
    expect(run.isError, textOf(run)).toBeFalsy();
    expect(run.structuredContent).toMatchObject({ status: 'completed', stopReason: 'end_turn' });
    expect((await reportOf(server, key, run)).files).toEqual([
      { path: 'données.csv', size: 4, sha256: sha256('x,y\n') },
      { path: 'notes (2).txt', size: 12, sha256: sha256('inline notes') },
      { path: 'notes.txt', size: 14, sha256: sha256('uploaded notes') },
    ]);
    // The inline files are the workspace's now, kept ATTACHED_FILE_RETENTION_DAYS after the run like any file a run was given.
    const files = await filesOf(server, person);
    expect(files.map((file) => [file.filename, file.expires_at === null]).sort()).toEqual([
      ['données.csv', false],
      ['notes.txt', false],
      ['notes.txt', false],
    ]);
  }, 60_000);

  it("answers another workspace's file id as not found, creates nothing and keeps none of the inline files", async ({
    server,
    api,
  }) => {
    const { person, key } = await licensedKey(server, api);
    const other = await licensedKey(server, api);
    const theirs = await uploadRaw(server.url, { 'x-api-key': other.key }, 'secret.txt', 'theirs');
    expect(theirs.status).toBe(201);
    const client = await mcpClient(server, key);
    const run = await client.callTool({
      name: 'run_skill',
      arguments: {
        skill_slug: 'reads-uploads',
        input: 'Read the files',
        files: [theirs.body.id],
        inline_files: [{ filename: 'mine.txt', contentBase64: base64('mine') }],
      },
    });
    expect(run.isError).toBe(true);
    expect(textOf(run)).toMatch(/^NOT_FOUND: File not found/);
    expect(textOf(run)).not.toContain('secret.txt');
    expect(await executionsOf(server, person)).toEqual([]);
    expect(await filesOf(server, person)).toEqual([]);

    // An unknown skill is refused the same way: the inline file stored for it goes again.
    const unknown = await client.callTool({
      name: 'run_skill',
      arguments: { skill_slug: 'no-such-skill', input: 'x', inline_files: [{ filename: 'a.txt', contentBase64: base64('a') }] },
    });
    expect(textOf(unknown)).toMatch(/^NOT_FOUND: /);
    expect(await filesOf(server, person)).toEqual([]);
    // Their file is untouched.
    expect((await fetch(`${server.url}/api/v1/files/${theirs.body.id}`, { headers: { 'x-api-key': other.key } })).status).toBe(
      200,
    );
  });

  it('refuses inline files over 5 MB in all before storing any, and a malformed list without a 5xx', async ({ server, api }) => {
    const { person, key } = await licensedKey(server, api);
    const client = await mcpClient(server, key);
    const half = Buffer.alloc(FIVE_MB / 2 + 1).toString('base64');
    const over = await client.callTool({
      name: 'run_skill',
      arguments: {
        skill_slug: 'reads-uploads',
        input: 'x',
        inline_files: [
          { filename: 'a.bin', contentBase64: half },
          { filename: 'b.bin', contentBase64: half },
        ],
      },
    });
    expect(over.isError).toBe(true);
    expect(textOf(over)).toMatch(/^PAYLOAD_TOO_LARGE: Inline files may come to at most 5242880 bytes/);
    expect(await filesOf(server, person)).toEqual([]);
    expect(await executionsOf(server, person)).toEqual([]);

    for (const args of [
      { files: ['x'.repeat(101)] },
      { files: [42] },
      { inline_files: [{ filename: 'a' }] },
      { inline_files: [{ filename: '', contentBase64: '' }] },
      { inline_files: 'a.txt' },
    ]) {
      const reply = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          'x-api-key': key,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'run_skill', arguments: { skill_slug: 'reads-uploads', input: 'x', ...args } },
        }),
      });
      expect(reply.status, JSON.stringify(args)).toBeLessThan(500);
      expect(await reply.text()).toMatch(/"isError":true|"error"/);
    }
    expect(await executionsOf(server, person)).toEqual([]);
  }, 60_000);

  it('still refuses a body past what inline files need with the standard 413', async ({ server, api }) => {
    const { key } = await licensedKey(server, api);
    const reply = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'x', arguments: { a: 'x'.repeat(9 * 1024 * 1024) } },
      }),
    });
    expect(reply.status).toBe(413);
    expect(await reply.json()).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) } });
  });
});
