import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got: its signed headers and its body as sent. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  headers: IncomingHttpHeaders;
}

/** How the receiver answers the nth request (from 1): a status, or never. */
export type Answer = (nth: number, response: ServerResponse) => void;

export const answerWith =
  (status: number): Answer =>
  (_nth, response) => {
    response.writeHead(status).end();
  };

/**
 * A webhook receiver on 127.0.0.1 that records what it is sent. `verified` checks a
 * request's signature with the standardwebhooks package, which no one here wrote.
 */
export async function startReceiver(answer: Answer = answerWith(204)) {
  const received: Received[] = [];
  let respond = answer;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        id: String(request.headers['webhook-id']),
        timestamp: String(request.headers['webhook-timestamp']),
        signature: String(request.headers['webhook-signature']),
        body: Buffer.concat(chunks).toString('utf8'),
        headers: request.headers,
      });
      respond(received.length, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    answer(next: Answer) {
      respond = next;
    },
    /** The parsed body of a request whose signature verifies under `secret`; throws otherwise. */
    verified(request: Received, secret: string) {
      return new Webhook(secret).verify(request.body, {
        'webhook-id': request.id,
        'webhook-timestamp': request.timestamp,
        'webhook-signature': request.signature,
      }) as { type: string; timestamp: string; data: Record<string, unknown> };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
