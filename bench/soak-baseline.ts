/**
 * The soak's baseline: a bare Fastify app answering the soak mix's paths (soak-mix.ts) with
 * small JSON of Skillet's sizes from memory, and a run's stream as plain SSE paced like the
 * ticker. No database, no credentials, no child processes: what any Node server doing this
 * traffic for this long would grow or slow by, to set Skillet's figures against.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';

const TICKS = 3;
const TICK_MS = 50;
const NOW = '2026-11-24T00:00:00.000Z';

/** Nine skills, about the 7 KB of Skillet's marketplace page for its built-ins. */
const SKILLS = {
  items: Array.from({ length: 9 }, (_, i) => ({
    slug: `skill-${i}`,
    name: `Skill ${i}`,
    description: 'A skill of the baseline, described at about the length of a real one. '.repeat(9),
    runtime: 'script',
    price: i % 2,
    installed: false,
  })),
  hasMore: false,
};
const BALANCE = { balance: 999_000, totalSpent: 1000, canExecute: true, isAdmin: false };
const ME = {
  user: { id: randomUUID(), email: 'soak@example.test', isAdmin: false, personalWorkspaceId: randomUUID(), createdAt: NOW },
  credential: { type: 'api_key', id: randomUUID() },
  tier: 'paygmode',
};
const HISTORY_ITEM = {
  skillSlug: 'ticker',
  skillName: 'Ticker',
  status: 'completed',
  cost: 0,
  source: 'api',
  interface: 'api',
  inputText: '3 50',
  startedAt: NOW,
  completedAt: NOW,
};
const ARTIFACT_ITEM = {
  skillSlug: 'text-stats',
  skillName: 'Text statistics',
  title: 'Skillet runs skills for people and their agents.',
  fileType: 'application/json',
  artifactType: 'output',
  contentSize: 346,
  status: 'completed',
  cost: 1,
  createdAt: NOW,
  fileList: [{ path: 'stats.json', size: 346 }],
};
const STATS_FILE = Buffer.from(`${JSON.stringify({ words: 30, topTerms: [] }).padEnd(345)}\n`);

const frame = (id: number, type: string, payload: unknown) =>
  `id: ${id}\ndata: ${JSON.stringify({ id: randomUUID(), type, sequence: id, payload })}\n\n`;

export async function soakBaseline(): Promise<string> {
  const app = Fastify({ logger: false });
  app.get('/api/v1/marketplace/skills', async () => SKILLS);
  app.get('/api/v1/billing/balance', async () => BALANCE);
  app.get('/api/v1/me', async () => ME);
  app.get('/api/v1/executions', async () => ({
    items: Array.from({ length: 10 }, (_, i) => ({ id: i + 1, executionId: randomUUID(), ...HISTORY_ITEM })),
    hasMore: true,
    offset: 0,
    limit: 10,
  }));
  app.get<{ Params: { id: string } }>('/api/v1/executions/:id/status', async (request) => ({
    executionId: request.params.id,
    status: 'completed',
    skillSlug: 'ticker',
    skillName: 'Ticker',
    startedAt: NOW,
    outputBlocks: [{ type: 'text', text: 'tick 3 of 3' }],
  }));
  app.get('/api/v1/artifacts', async () => ({
    items: Array.from({ length: 10 }, () => ({ id: randomUUID(), ...ARTIFACT_ITEM })),
    total: 10,
    limit: 10,
    offset: 0,
    hasMore: false,
  }));
  app.get('/api/v1/artifacts/:id/download', async (_request, reply) =>
    reply
      .header('content-type', 'application/json')
      .header('content-disposition', 'attachment; filename="stats.json"')
      .send(STATS_FILE),
  );
  app.post('/api/v1/executions', async () => ({ id: randomUUID(), skill_slug: 'ticker', skill_name: 'Ticker', status: 'idle' }));
  app.get<{ Params: { id: string } }>('/api/v1/executions/:id/stream-token', async (request) => ({
    sseUrl: `http://${request.headers.host}/executions/${request.params.id}/stream?sig=${randomUUID()}`,
  }));
  app.post('/api/v1/executions/:id/events', async () => ({
    data: [{ id: randomUUID(), type: 'user.message', sequence: 1, payload: {} }],
  }));
  // The stream, like Skillet's, is written to the socket directly: ticks, the result, idle, end.
  app.get('/executions/:id/stream', (_request, reply) => {
    reply.hijack();
    const response = reply.raw;
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let tick = 0;
    const ticking = setInterval(() => {
      tick++;
      if (tick <= TICKS) {
        response.write(frame(tick, 'agent.message', { content: [{ type: 'text', text: `tick ${tick} of ${TICKS}` }] }));
        return;
      }
      clearInterval(ticking);
      response.end(
        frame(tick, 'execution.result', { summary: 'done', cost: 0, artifactId: randomUUID() }) +
          frame(tick + 1, 'session.status_idle', { stop_reason: { type: 'end_turn' } }),
      );
    }, TICK_MS);
    response.on('close', () => clearInterval(ticking));
  });
  return app.listen({ host: '127.0.0.1', port: 0 });
}
