import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How a request's exchange ended: answered in full, given up by the client, or cut by the plan. */
export type ExchangeEnd = 'answered' | 'client_closed' | 'cut';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** Settles once the exchange is over; `client_closed` when the client hung up before the reply ended. */
  ended: Promise<ExchangeEnd>;
}

/**
 * What a vendor's planned answer comes to on the wire, whatever the vendor:
 * - status: an HTTP error with the vendor's error body and `retry-after-ms: 1`, so the SDK retries at once;
 * - reply: every SSE piece, then the response ended;
 * - cut: the first `sendFirst` pieces (default: half), then the socket destroyed;
 * - hang: the first `sendFirst` pieces, then nothing until the client gives up;
 * - truncate: the first `sendFirst` pieces, then the response ended cleanly (a stream with no stop).
 */
export type WireAnswer =
  | { kind: 'status'; status: number; message?: string }
  | { kind: 'reply' | 'cut' | 'hang' | 'truncate'; pieces: string[]; sendFirst?: number };

/** The one part of a fake that differs by vendor: its wire format. */
export interface VendorWire<Plan, Recorded extends RecordedRequest> {
  /** Appended to the server root to make the base URL the vendor's SDK expects. */
  basePath: string;
  /** Headers besides the content type on every streamed reply (a request id, say). */
  streamHeaders: Record<string, string>;
  /** Headers besides the content type and `retry-after-ms` on every error reply. */
  errorHeaders: Record<string, string>;
  errorBody(status: number, message: string): string;
  /** The plan's SSE pieces, built from the request body (the model echoed back) and the request's serial number. */
  answer(plan: Plan, body: Record<string, unknown>, serial: number): WireAnswer;
  /** Builds the vendor's record of a request, which may carry more than the common fields. */
  record(request: RecordedRequest): Recorded;
  /** Called just after each piece is written, so a vendor can note when something reached the wire. */
  afterWrite?(piece: string, recorded: Recorded): void;
}

export interface StreamingVendor<Plan, Recorded> {
  url: string;
  requests: Recorded[];
  /** Adds planned answers to the queue. */
  plan(...plans: Plan[]): void;
  /**
   * Answers every request from its body instead of the queue (a conversation whose next answer
   * depends on how far it has got, whichever server asks): for runs resumed on another worker.
   */
  planBy(choose: ((body: Record<string, unknown>) => Plan | Promise<Plan>) | undefined): void;
  /** Forgets the answers planned but never asked for: a run a limit ended early leaves some behind. */
  forgetPlans(): void;
  close(): Promise<void>;
}

/** `text` in runs of `size` characters: how a fake splits a block into deltas. */
export function slices(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.from(chunk));
  const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? { ...parsed } : {};
}

/**
 * A vendor API on 127.0.0.1 that records every request and answers each with the next planned
 * answer, in the vendor's wire format; a request with nothing planned gets a 500.
 */
export async function startStreamingVendor<Plan, Recorded extends RecordedRequest>(
  wire: VendorWire<Plan, Recorded>,
  initial: Plan[],
): Promise<StreamingVendor<Plan, Recorded>> {
  const queue = [...initial];
  const requests: Recorded[] = [];
  let choose: ((body: Record<string, unknown>) => Plan | Promise<Plan>) | undefined;

  const sendError = (res: ServerResponse, status: number, message: string, end: (how: ExchangeEnd) => void) => {
    res.writeHead(status, { 'content-type': 'application/json', 'retry-after-ms': '1', ...wire.errorHeaders });
    res.end(wire.errorBody(status, message), () => end('answered'));
  };

  const server = createServer(async (req, res) => {
    let settle: (how: ExchangeEnd) => void = () => undefined;
    const ended = new Promise<ExchangeEnd>((resolve) => {
      settle = resolve;
    });
    const body = await jsonBody(req);
    const recorded = wire.record({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, ended });
    requests.push(recorded);
    const write = (piece: string) => {
      res.write(piece);
      wire.afterWrite?.(piece, recorded);
    };
    // The response closing before it finished means the client hung up.
    res.on('close', () => settle(res.writableFinished ? 'answered' : 'client_closed'));

    const plan = choose ? await choose(body) : queue.shift();
    if (plan === undefined) return sendError(res, 500, 'the fake has no answer planned for this request', settle);
    const answer = wire.answer(plan, body, requests.length);
    if (answer.kind === 'status') return sendError(res, answer.status, answer.message ?? `fake ${answer.status}`, settle);

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...wire.streamHeaders });
    if (answer.kind === 'reply') {
      for (const piece of answer.pieces) write(piece);
      res.end();
      return;
    }
    for (const piece of answer.pieces.slice(0, answer.sendFirst ?? Math.floor(answer.pieces.length / 2))) write(piece);
    if (answer.kind === 'truncate') res.end();
    if (answer.kind === 'cut') {
      // Destroy only once the partial stream is on the wire, so the client sees it and then the cut.
      res.write('', () => {
        settle('cut');
        res.socket?.destroy();
      });
    }
    // A hang writes nothing more; the 'close' listener records the client giving up.
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${wire.basePath}`,
    requests,
    plan: (...plans) => queue.push(...plans),
    planBy: (chosen) => {
      choose = chosen;
    },
    forgetPlans: () => queue.splice(0),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
