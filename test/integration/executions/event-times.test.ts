import { describe, expect } from 'vitest';
import type { EventTimes } from '../../../src/sdk/types.js';
import { runToEnd, tickerRunTypes } from '../../helpers/executions.js';
import { session, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';

const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' });

describe('the times of a run’s events', () => {
  it('gives one time per event, in order, from the clock that stored it, paged by sequence', async ({ api, server }) => {
    const person = await signUp(api);
    const started = server.clock.nowMs();
    const { created, stream } = await runToEnd(api, person, 'ticker', '3 10');
    expect(stream.events.map((event) => event.type)).toEqual(tickerRunTypes(3));

    const all = await api.get<EventTimes>(`/api/v1/executions/${created.id}/event-times`, { headers: session(person) });
    expect(all.status).toBe(200);
    expect(all.body.hasMore).toBe(false);
    expect(all.body.times.map((time) => time.sequence)).toEqual(stream.events.map((event) => event.sequence));
    const moments = all.body.times.map((time) => Date.parse(time.at));
    expect(moments.every((moment, index) => moment >= started && moment >= (moments[index - 1] ?? 0))).toBe(true);
    expect(moments.at(-1)).toBeLessThanOrEqual(server.clock.nowMs());

    const rest = await api.get<EventTimes>(`/api/v1/executions/${created.id}/event-times?after=2`, { headers: session(person) });
    expect(rest.body.times).toEqual(all.body.times.slice(2));
  });

  it('is not found for another workspace, and refuses a bad page in words', async ({ api }) => {
    const owner = await signUp(api);
    const { created } = await runToEnd(api, owner, 'ticker', '1 10');
    const stranger = await signUp(api);
    const hidden = await api.get(`/api/v1/executions/${created.id}/event-times`, { headers: session(stranger) });
    expect([hidden.status, hidden.body]).toEqual([404, { error: { code: 'NOT_FOUND', message: 'Execution not found' } }]);
    const bad = await api.get<{ error: { code: string; message: string } }>(
      `/api/v1/executions/${created.id}/event-times?after=-1`,
      { headers: session(owner) },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_INPUT');
    expect(bad.body.error.message).not.toMatch(/querystring|must match/);
  });
});
