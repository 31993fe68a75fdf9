import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, onTestFinished } from 'vitest';
import { licensedKey } from '../../helpers/billing.js';
import type { TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import type { TestServer } from '../../helpers/server.js';

/** MCP's uploads (upload_file, run_skill's inline_files) are held to the workspace's storage limits (issue 50, item 3). */
const it = withServer({
  RATE_LIMIT_EXECUTIONS_PER_MINUTE: '1000',
  RATE_LIMIT_MCP_PER_MINUTE: '1000',
  WORKSPACE_FILE_LIMIT: '2',
  WORKSPACE_STORAGE_LIMIT_BYTES: '1000',
});

async function mcpClient(server: TestServer, key: string) {
  const client = new Client({ name: 'Quota Test', version: '1.0.0' });
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

const base64 = (size: number) => Buffer.alloc(size, 1).toString('base64');

async function storedOf(server: TestServer, person: TestUser) {
  const workspaceId = person.user.personalWorkspaceId;
  const files = await server.db.db.selectFrom('input_files').select('size').where('workspace_id', '=', workspaceId).execute();
  const runs = await server.db.db
    .selectFrom('executions')
    .select('execution_id')
    .where('workspace_id', '=', workspaceId)
    .execute();
  return { files: files.map((file) => Number(file.size)).sort(), runs: runs.length };
}

describe('MCP uploads within the workspace storage limits', () => {
  it('upload_file past the file count is a CONFLICT tool error in words, nothing stored', async ({ server, api }) => {
    const { person, key } = await licensedKey(server, api);
    const client = await mcpClient(server, key);
    for (const filename of ['a.txt', 'b.txt']) {
      const stored = await client.callTool({ name: 'upload_file', arguments: { filename, contentBase64: base64(10) } });
      expect(stored.isError, textOf(stored)).toBeFalsy();
    }
    const over = await client.callTool({ name: 'upload_file', arguments: { filename: 'c.txt', contentBase64: base64(10) } });
    expect(over.isError).toBe(true);
    expect(textOf(over)).toMatch(/^CONFLICT: This workspace keeps 2 of the 2 files .*Delete files you no longer need/);
    expect(await storedOf(server, person)).toEqual({ files: [10, 10], runs: 0 });
  });

  it('run_skill whose inline files pass the bytes is refused, creating no run and keeping none of them', async ({
    server,
    api,
  }) => {
    const { person, key } = await licensedKey(server, api);
    const client = await mcpClient(server, key);
    const run = await client.callTool({
      name: 'run_skill',
      arguments: {
        skill_slug: 'reads-uploads',
        input: 'Read the files',
        inline_files: [
          { filename: 'first.bin', contentBase64: base64(600) },
          { filename: 'second.bin', contentBase64: base64(600) },
        ],
      },
    });
    expect(run.isError).toBe(true);
    expect(textOf(run)).toMatch(/^PAYLOAD_TOO_LARGE: This workspace keeps .*this file takes 600 bytes, so nothing was stored/);
    expect(await storedOf(server, person)).toEqual({ files: [], runs: 0 });
  });
});
