import { describe, expect } from 'vitest';
import { withServer } from '../../helpers/fixtures.js';

/** The default: an access line for answers of 400 and up only. */
const it = withServer();

const accessLines = (logs: string[]) =>
  logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === 'request completed');

describe('access lines by default', () => {
  it('are written for refusals and failures, not for every answer that went well', async ({ api, server }) => {
    const before = accessLines(server.logs).length;
    for (let i = 0; i < 5; i++) expect((await api.get('/healthz')).status).toBe(200);
    expect(accessLines(server.logs)).toHaveLength(before);

    const refused = await api.get('/api/v1/workspaces');
    expect(refused.status).toBe(401);
    const lines = accessLines(server.logs).slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ req: { method: 'GET', path: '/api/v1/workspaces' }, statusCode: 401 });
  });
});
