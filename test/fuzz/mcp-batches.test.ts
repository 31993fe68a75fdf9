import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { expect } from 'vitest';
import { licensedKey } from '../helpers/billing.js';
import { withServer } from '../helpers/fixtures.js';
import { runs } from './settings.js';

/**
 * MCP's allowance (60 messages a minute, the clock held still) under random sequences of
 * single messages and JSON-RPC batches of any size (issue 50, item 8a). The model: a
 * request is served when all its messages fit in what is left, and then counts one per
 * message; refused for the limit, it counts nothing, so what is left stays for what fits;
 * a batch on a revision without batches is answered 400 and counts the one request it was.
 * Every answer's `x-ratelimit-remaining` must be the model's.
 */
const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '10000000' });

const LIMIT = 60;

interface Sent {
  messages: number;
  /** A batch on 2025-06-18, which has none: refused 400 after its arrival is counted. */
  oldRevision: boolean;
}

const sent: fc.Arbitrary<Sent> = fc.record({
  messages: fc.oneof(fc.constant(1), fc.integer({ min: 2, max: 25 })),
  oldRevision: fc.boolean(),
});

const read = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'read_artifact', arguments: { artifactId: randomUUID() } },
});

it('counts what it serves, one per message, and nothing it refuses for the limit', async ({ server, api }) => {
  await fc.assert(
    fc.asyncProperty(fc.array(sent, { minLength: 1, maxLength: 12 }), async (requests) => {
      // A new key each run: a window of its own, with the clock held still.
      const { key } = await licensedKey(server, api);
      let used = 0;
      for (const { messages, oldRevision } of requests) {
        const batch = messages > 1 || oldRevision;
        const body = batch ? Array.from({ length: messages }, (_, i) => read(i + 1)) : read(1);
        const reply = await fetch(`${server.url}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'x-api-key': key,
            'mcp-protocol-version': oldRevision ? '2025-06-18' : '2025-03-26',
          },
          body: JSON.stringify(body),
        });
        const text = await reply.text();
        const where = `${messages} message(s)${oldRevision ? ' on 2025-06-18' : ''} with ${used} used: ${text.slice(0, 200)}`;
        if (used >= LIMIT) {
          expect(reply.status, where).toBe(429);
        } else if (oldRevision && batch) {
          used += 1;
          expect(reply.status, where).toBe(400);
        } else if (used + messages <= LIMIT) {
          used += messages;
          expect(reply.status, where).toBe(200);
        } else {
          expect(reply.status, where).toBe(429);
          expect(JSON.parse(text), where).toEqual({ error: { type: 'rate_limit_error', message: expect.any(String) } });
        }
        expect(reply.headers.get('x-ratelimit-remaining'), where).toBe(String(LIMIT - used));
      }
    }),
    runs(30),
  );
});
