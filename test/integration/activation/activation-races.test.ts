import { describe, expect } from 'vitest';
import { session, signUp, startActivation } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';

// Limits raised so that every call reaches the compare-and-set instead of the limiter.
const it = withServer({ RATE_LIMIT_POLL_BURST: '100000', RATE_LIMIT_REST_PER_MINUTE: '1000000' });

const ROUNDS = 50;
const CONTENDERS = 20;

// The server's errors, should a race end in one, are what explains the failure.
it.afterAll(({ server }) => {
  for (const line of server.logs) if (line.includes('"level":50')) console.log(line.slice(0, 600));
});

describe('confirm and deny race through one compare-and-set', () => {
  it(`gives exactly one of ${CONTENDERS} concurrent decisions a 200, ${ROUNDS} times over`, async ({ server, api }) => {
    for (let round = 0; round < ROUNDS; round++) {
      const approver = await signUp(api);
      const created = await startActivation(server, api);
      const decisions = Array.from({ length: CONTENDERS }, (_, i) => (i % 2 === round % 2 ? 'confirm' : 'deny'));
      const replies = await Promise.all(
        decisions.map((decision) =>
          api.post<{ error?: { code: string; message: string } }>(`/api/v1/activate/${decision}`, {
            body: { code: created.user_code },
            headers: session(approver),
          }),
        ),
      );
      const winners = replies.flatMap((reply, i) => (reply.status === 200 ? [decisions[i]] : []));
      expect(winners, `round ${round}`).toHaveLength(1);
      const winningState = winners[0] === 'confirm' ? 'approved' : 'denied';
      for (const reply of replies.filter((r) => r.status !== 200)) {
        expect(reply.status, `round ${round}`).toBe(409);
        expect(reply.body.error?.code).toBe('CONFLICT');
        expect(reply.body.error?.message).toContain(winningState);
      }
      const keys = await api.get<{ keys: unknown[] }>('/api/v1/keys', { headers: session(approver) });
      expect(keys.body.keys, `round ${round}: one key minted exactly when confirm won`).toHaveLength(
        winningState === 'approved' ? 1 : 0,
      );
    }
  });
});

describe('the key claim is atomic', () => {
  it(`hands the key to exactly one of ${CONTENDERS} concurrent polls, ${ROUNDS} times over`, async ({ server, api }) => {
    const approver = await signUp(api);
    for (let round = 0; round < ROUNDS; round++) {
      const created = await startActivation(server, api);
      const confirmed = await api.post('/api/v1/activate/confirm', {
        body: { code: created.user_code },
        headers: session(approver),
      });
      expect(confirmed.status).toBe(200);
      const replies = await Promise.all(
        Array.from({ length: CONTENDERS }, () =>
          api.post<{ status: string; api_key?: string }>('/api/v1/activate/poll', { body: { device_code: created.device_code } }),
        ),
      );
      expect(replies.every((reply) => reply.status === 200)).toBe(true);
      const claims = replies.filter((reply) => reply.body.status === 'approved');
      expect(claims, `round ${round}`).toHaveLength(1);
      expect(claims[0]?.body.api_key).toMatch(/^sklt_live_/);
      expect(replies.filter((reply) => reply.body.status === 'consumed')).toHaveLength(CONTENDERS - 1);
      // Stay under the paygmode key limit for the next round.
      const keys = await api.get<{ keys: { id: string }[] }>('/api/v1/keys', { headers: session(approver) });
      for (const key of keys.body.keys) await api.delete(`/api/v1/keys/${key.id}`, { headers: session(approver) });
    }
  });
});
