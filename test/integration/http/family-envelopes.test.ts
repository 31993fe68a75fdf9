import { describe, expect } from 'vitest';
import { createExecution, sendMessage, streamOf } from '../../helpers/executions.js';
import { session, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';

/**
 * Issue 50, item 8: the answers an attack run read as out of their route family's envelope.
 * SPEC.md gives both the shapes they have (the execution-running 429's `{error:
 * "EXECUTION_RUNNING", message}`; the artifact routes' `{error: <string>, isRunning}`), so
 * these pin each shape key for key, every other paged list's refusal in the usual
 * envelope, and messages that say what to do.
 */
const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' });

const LISTS = [
  '/api/v1/executions',
  '/api/v1/files',
  '/api/v1/marketplace/skills',
  '/api/v1/agents/assistant/threads',
  '/api/v1/artifacts',
];

const BAD_QUERIES: [string, RegExp][] = [
  ['?limit=-5', /^The limit must be a whole number, such as 20\.$/],
  ['?limit=ten', /^The limit must be a whole number, such as 20\.$/],
  ['?offset=-1', /^The offset must be a whole number, such as 20\.$/],
  // Past the range each list takes: the range, in the list's own words.
  ['?limit=0', /\b1 to 100\b/],
  ['?limit=101', /\b1 to 100\b/],
];

describe('refusals in their route family’s envelope, exactly', () => {
  it('a bad limit or offset: the artifact list in its older shape, every other list in the usual envelope', async ({ api }) => {
    const person = await signUp(api);
    for (const list of LISTS) {
      for (const [query, words] of BAD_QUERIES) {
        const reply = await api.get(`${list}${query}`, { headers: session(person) });
        const where = `${list}${query}`;
        expect(reply.status, where).toBe(400);
        if (list === '/api/v1/artifacts') {
          // SPEC: the artifact routes' failures are {error: <string>, isRunning: <boolean>}, and nothing else.
          expect(reply.body, where).toEqual({ error: expect.stringMatching(words), isRunning: false });
        } else {
          expect(reply.body, where).toEqual({ error: { code: 'INVALID_INPUT', message: expect.stringMatching(words) } });
        }
      }
    }
  });

  it('a second start in a busy workspace: the 429 SPEC gives, with what to do in its words', async ({ api }) => {
    const person = await signUp(api);
    const running = await createExecution(api, person, 'ticker', '100 50');
    const stream = await streamOf(api, person, running.id);
    expect((await sendMessage(api, person, running.id, '100 50')).status).toBe(200);
    const second = await createExecution(api, person, 'ticker', '1 0');
    const refused = await sendMessage(api, person, second.id, '1 0');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: 'EXECUTION_RUNNING',
      message:
        'An execution is already running in this workspace. Wait for it to finish, or cancel it, then start this one again.',
    });
    expect((await api.post(`/api/v1/executions/${running.id}/cancel`, { headers: session(person) })).status).toBe(200);
    await stream.ended;
  });
});
