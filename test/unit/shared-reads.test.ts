import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SkilletError } from '../../src/sdk/errors.js';
import { get, post } from '../../web/src/api.js';
import { inPlainWords } from '../../web/src/error-words.js';
import { FRESH_MS, forgetReads, reusingFresh } from '../../web/src/shared-reads.js';

/**
 * The app's reads, against a stand-in for the browser's fetch that counts what is sent and
 * answers from a script: the same read is sent once however many screens want it, a fresh
 * answer is reused only by a screen's first look, a change forgets everything, and a read
 * refused for the rate limit waits the server's time and asks again.
 */

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

let sent: string[] = [];
let script: Answer[] = [];

function answerWith(answer: Answer): Response {
  return new Response(JSON.stringify(answer.body), { status: answer.status, headers: answer.headers });
}

beforeEach(() => {
  vi.useFakeTimers();
  forgetReads();
  sent = [];
  script = [];
  vi.stubGlobal('fetch', async (path: string, init: RequestInit) => {
    sent.push(`${init.method} ${path}`);
    return answerWith(script.shift() ?? { status: 200, body: { n: sent.length } });
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('the app’s shared reads', () => {
  it('sends a read once while it is on its way, however many ask', async () => {
    const answers = await Promise.all([get('/api/v1/billing/balance'), get('/api/v1/billing/balance')]);
    expect(sent).toEqual(['GET /api/v1/billing/balance']);
    expect(answers[0]).toBe(answers[1]);
  });

  it('reuses a fresh answer for a screen’s first look only, and asks again once it is old', async () => {
    await get('/api/v1/workspaces');
    await reusingFresh(() => get('/api/v1/workspaces'));
    expect(sent).toHaveLength(1);
    // A refresh or a poll always asks the server.
    await get('/api/v1/workspaces');
    expect(sent).toHaveLength(2);
    vi.advanceTimersByTime(FRESH_MS + 1);
    await reusingFresh(() => get('/api/v1/workspaces'));
    expect(sent).toHaveLength(3);
  });

  it('forgets every answer when the app changes something', async () => {
    await get('/api/v1/billing/subscription/tier');
    await post('/api/v1/byok', { key: 'x' });
    await reusingFresh(() => get('/api/v1/billing/subscription/tier'));
    expect(sent).toEqual(['GET /api/v1/billing/subscription/tier', 'POST /api/v1/byok', 'GET /api/v1/billing/subscription/tier']);
  });

  it('does not share a failure: the next read asks again', async () => {
    script = [{ status: 500, body: { error: { message: 'The server failed; try again.' } } }];
    await expect(get('/api/v1/keys')).rejects.toThrow('The server failed');
    await reusingFresh(() => get('/api/v1/keys'));
    expect(sent).toHaveLength(2);
  });

  it('waits the Retry-After of a read refused for the rate limit, then asks again', async () => {
    const limited = { status: 429, body: { error: { type: 'rate_limit_error', message: 'Rate limit exceeded; slow down' } } };
    script = [{ ...limited, headers: { 'retry-after': '7' } }];
    const reading = get('/api/v1/billing/packs');
    await vi.advanceTimersByTimeAsync(6_900);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(200);
    await expect(reading).resolves.toEqual({ n: 2 });
    expect(sent).toHaveLength(2);
  });

  it('does not wait on a 429 that is not the limiter’s: a run going answers at once', async () => {
    script = [{ status: 429, body: { error: 'An execution is running', isRunning: true } }];
    const refused = await get('/api/v1/artifacts/a1').catch((error: unknown) => error);
    expect(sent).toHaveLength(1);
    expect((refused as SkilletError).code).toBe('EXECUTION_RUNNING');
  });

  it('gives up after a few waits, and a refused change is not sent again but told in words', async () => {
    const limited = {
      status: 429,
      body: { error: { type: 'rate_limit_error', message: 'Rate limit exceeded; slow down' } },
      headers: { 'retry-after': '12' },
    };
    script = [limited, limited, limited, limited];
    const reading = get('/api/v1/billing/packs').catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(40_000);
    expect(sent).toHaveLength(4);
    expect(await reading).toBeInstanceOf(SkilletError);

    sent = [];
    script = [limited];
    const buying = await post('/api/v1/billing/purchase', { packId: 'pack_100' }).catch((error: unknown) => error);
    expect(sent).toHaveLength(1);
    expect((buying as SkilletError).status).toBe(429);
    expect((buying as SkilletError).message).toBe(
      'You have sent the server more requests this minute than it takes: wait 12 seconds, then try again.',
    );
  });

  it('says the wait for the run limit too, and leaves other refusals of 429 in their own words', () => {
    const runs = inPlainWords(new SkilletError(429, 'RATE_LIMITED', 'Too many executions started; wait a moment', 1));
    expect(runs.message).toBe('Too many runs were started in the last minute: wait 1 second, then try again.');
    const signIns = 'Too many failed sign-ins for this account; try again later';
    expect(inPlainWords(new SkilletError(429, 'RATE_LIMITED', signIns, 900)).message).toBe(signIns);
    expect(inPlainWords(new SkilletError(429, 'RATE_LIMITED', 'toString', 5)).message).toBe('toString');
  });
});
