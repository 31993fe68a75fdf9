import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { guardedLookup, literalAddressOf, publicAddressesOf } from '../sandbox/egress/address-guard.js';

export interface AttemptOutcome {
  /** The receiver's status, when it answered. */
  statusCode: number | null;
  /** Why the attempt failed, in a few words; null when it was answered with 2xx. */
  error: string | null;
}

export interface PostOptions {
  headers: Record<string, string>;
  timeoutMs: number;
  /** Off: the connection goes only to public addresses, checked as the host is resolved. */
  allowPrivateAddresses: boolean;
}

const USER_AGENT = 'Skillet-Webhooks/1';
/** Of an answer only the status counts; a receiver that streams a large body is not read to its end. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * One POST of a signed body. Redirects are not followed (a 3xx is a failed attempt): a
 * receiver could otherwise send the signed body, and our request, anywhere.
 */
export async function postWebhook(url: URL, body: string, options: PostOptions): Promise<AttemptOutcome> {
  // Node connects to an address in the URL without calling `lookup`: check it here.
  if (!options.allowPrivateAddresses && literalAddressOf(url.hostname)) {
    try {
      await publicAddressesOf(url.hostname);
    } catch (error) {
      return { statusCode: null, error: (error as Error).message };
    }
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const requestOptions: RequestOptions = {
    method: 'POST',
    headers: {
      ...options.headers,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body).toString(),
      'user-agent': USER_AGENT,
    },
    signal: AbortSignal.timeout(options.timeoutMs),
    // No pooled sockets: each attempt resolves (and checks) the host afresh.
    agent: false,
    ...(options.allowPrivateAddresses ? {} : { lookup: guardedLookup() }),
  };
  return new Promise((resolve) => {
    const settle = (outcome: AttemptOutcome) => resolve(outcome);
    const outgoing = send(url, requestOptions, (response) => {
      const statusCode = response.statusCode ?? 0;
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) response.destroy();
      });
      response.on('error', () => undefined);
      response.on('close', () => {
        if (statusCode >= 200 && statusCode < 300) settle({ statusCode, error: null });
        else if (statusCode >= 300 && statusCode < 400) settle({ statusCode, error: 'redirects are not followed' });
        else settle({ statusCode, error: `the receiver answered ${statusCode}` });
      });
      response.resume();
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      settle({ statusCode: null, error: failureOf(error, options.timeoutMs) }),
    );
    outgoing.end(body);
  });
}

function failureOf(error: NodeJS.ErrnoException, timeoutMs: number): string {
  if (error.name === 'AbortError' || error.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  if (error.code === 'ECONNREFUSED') return 'the connection was refused';
  if (error.code === 'ENOTFOUND') return 'the host could not be resolved';
  return error.message.slice(0, 200);
}
