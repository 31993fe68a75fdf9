import { describe, expect, it } from 'vitest';
import { SkilletClient } from '../../src/sdk/client.js';
import { SkilletError } from '../../src/sdk/errors.js';

describe('SDK errors and retries', () => {
  const fakeFetch = (replies: Response[]) => {
    const calls: string[] = [];
    const fetchImpl = (async (url: string | URL | Request) => {
      calls.push(String(url));
      return replies.shift() ?? new Response('{}', { status: 500 });
    }) as typeof fetch;
    return { calls, fetchImpl };
  };
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

  it('waits out a 429 by its Retry-After, a bounded number of times', async () => {
    const limited = () => json(429, { error: { type: 'rate_limit_error', message: 'slow down' } }, { 'retry-after': '0' });
    const { calls, fetchImpl } = fakeFetch([limited(), limited(), json(200, { balance: 5 })]);
    const retrying = new SkilletClient({ baseUrl: 'http://skillet.test', apiKey: 'k', fetch: fetchImpl });
    expect(await retrying.billing.balance()).toEqual({ balance: 5 });
    expect(calls).toHaveLength(3);

    const always = fakeFetch([limited(), limited(), limited()]);
    const giving = new SkilletClient({ baseUrl: 'http://skillet.test', apiKey: 'k', fetch: always.fetchImpl, maxRetries: 2 });
    await expect(giving.billing.balance()).rejects.toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(always.calls).toHaveLength(3);

    const tooLong = fakeFetch([json(429, { error: { type: 'rate_limit_error', message: 'later' } }, { 'retry-after': '120' })]);
    const impatient = new SkilletClient({ baseUrl: 'http://skillet.test', fetch: tooLong.fetchImpl, maxRetryWaitSeconds: 5 });
    await expect(impatient.billing.balance()).rejects.toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 120 });
  });

  it('reads every envelope into one error type with the status and the code', async () => {
    const { fetchImpl } = fakeFetch([
      json(400, { error: { code: 'INVALID_INPUT', message: 'bad' } }),
      json(429, { error: 'EXECUTION_RUNNING', message: 'busy' }),
      json(404, { error: 'Artifact not found', isRunning: false }),
      json(429, { error: 'still writing', isRunning: true }),
      new Response('<html>', { status: 502 }),
    ]);
    const errors = new SkilletClient({ baseUrl: 'http://skillet.test', fetch: fetchImpl, maxRetries: 0 });
    const codes = [];
    for (let i = 0; i < 5; i++) {
      const error = await errors.auth.me().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SkilletError);
      codes.push([(error as SkilletError).status, (error as SkilletError).code, (error as SkilletError).message]);
    }
    expect(codes).toEqual([
      [400, 'INVALID_INPUT', 'bad'],
      [429, 'EXECUTION_RUNNING', 'busy'],
      [404, 'NOT_FOUND', 'Artifact not found'],
      [429, 'EXECUTION_RUNNING', 'still writing'],
      [502, 'INTERNAL_ERROR', 'HTTP 502'],
    ]);
  });
});
