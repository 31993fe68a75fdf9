import { describe, expect } from 'vitest';
import { SkilletClient } from '../../../src/sdk/client.js';
import { SkilletError } from '../../../src/sdk/errors.js';
import type { ExecutionEvent } from '../../../src/sdk/types.js';
import { createKey, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';

/** The SDK's one call to a result (issue 51, item 4), against a real server. */
const it = withServer({ SIGNUP_CREDITS: '0', RATE_LIMIT_REST_PER_MINUTE: '100000' }).extend(
  'sdk',
  { scope: 'file' },
  async ({ server, api }) => {
    const person = await signUp(api);
    return new SkilletClient({ baseUrl: server.url, apiKey: (await createKey(api, person)).key });
  },
);

describe('SkilletClient executions.run', () => {
  it('waits for the result of a run it creates and starts in one call', async ({ sdk, server }) => {
    const result = await sdk.executions.run('ticker', '2 5', { wait: 30 });
    expect(result).toMatchObject({ skillSlug: 'ticker', status: 'completed', stopReason: 'end_turn', inputText: '2 5' });
    expect(result.output.split('\n')).toHaveLength(2);
    expect(result.webUrl).toBe(`${server.url}/app/runs/${result.executionId}`);
    const history = await sdk.executions.history({ limit: 1 });
    expect(history.items[0]).toMatchObject({ executionId: result.executionId, inputText: '2 5', status: 'completed' });
  });

  it('answers at once without wait, and the stream follows on from what it said', async ({ sdk }) => {
    const started = await sdk.executions.run('ticker', '3 5');
    const seen: ExecutionEvent[] = [];
    for await (const event of sdk.executions.events(started.executionId)) seen.push(event);
    expect(seen.map((event) => event.type).slice(0, 2)).toEqual(['user.message', 'session.status_running']);
    expect(seen.at(-1)?.type).toBe('session.status_idle');
    expect((await sdk.executions.status(started.executionId)).status).toBe('completed');
  });

  it('throws the server’s refusal in words: a priced skill without credits', async ({ sdk }) => {
    const refused = await sdk.executions.run('text-stats', 'x', { wait: true }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SkilletError);
    expect(refused).toMatchObject({ status: 402, code: 'INSUFFICIENT_CREDITS' });
  });
});
