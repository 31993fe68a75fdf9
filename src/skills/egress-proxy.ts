import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, createServer, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type Clock, systemClock } from '../clock.js';
import type { Resolve } from '../webhooks/address-guard.js';
import { checkDestination, type EgressPolicy, EgressRefused, normalHost, pinnedLookup } from './egress-policy.js';

/** Where each connection is reported: a pino logger fits. */
export interface ConnectionLog {
  info(fields: Record<string, unknown>, message: string): void;
}

export interface EgressProxyOptions {
  /** A path the sandbox gets bound in; it must not exist yet. */
  socketPath: string;
  policy: EgressPolicy;
  log: ConnectionLog;
  runId: string;
  /** Connections from the sandbox open at once; one more is answered 503. */
  maxConnections?: number;
  /** A connection with no bytes either way for this long is closed. */
  idleTimeoutMs?: number;
  clock?: Clock;
  resolve?: Resolve;
}

export interface EgressProxy {
  close(): Promise<void>;
}

const DEFAULT_MAX_CONNECTIONS = 32;
const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** Headers about one hop, not the request: a proxy drops them (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** One line of printable ASCII: it goes into a status line, where nothing else may. */
function oneLine(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 400);
}

/**
 * A refusal as a whole HTTP answer. The reason is the status line's phrase as well as the
 * body: clients such as Python's urllib show only the phrase when a CONNECT fails.
 */
function plainAnswer(status: number, text: string): string {
  const line = oneLine(text);
  const body = `${line}\n`;
  return `HTTP/1.1 ${status} ${line}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`;
}

interface Destination {
  host: string;
  port: number;
}

/** `host:port` of a CONNECT, with the port required. */
function connectTarget(authority: string): Destination {
  const match = /^(.+):(\d{1,5})$/.exec(authority);
  let url: URL | undefined;
  try {
    url = match ? new URL(`http://${authority}`) : undefined;
  } catch {
    url = undefined;
  }
  const host = url && url.pathname === '/' && !url.username && !url.search ? normalHost(url.hostname) : undefined;
  if (!match || !host) throw new EgressRefused(`"${authority.slice(0, 200)}" is not a host and port to connect to`);
  return { host, port: Number(match[2]) };
}

/** Sends a last answer and closes: a client that keeps its side open does not hold a slot. */
function answerAndClose(socket: Duplex, answer: string): void {
  socket.once('finish', () => socket.destroy());
  socket.end(answer);
}

/** The destination of a plain-HTTP request, which a proxy receives as a full URL. */
function requestTarget(raw: string): { destination: Destination; path: string; hostHeader: string } {
  let url: URL | undefined;
  try {
    url = /^[a-z]+:\/\//i.test(raw) ? new URL(raw) : undefined;
  } catch {
    url = undefined;
  }
  if (url?.protocol === 'https:') throw new EgressRefused('https addresses go through a CONNECT tunnel; set HTTPS_PROXY');
  const host = url?.protocol === 'http:' ? normalHost(url.hostname) : undefined;
  if (!url || !host) {
    throw new EgressRefused('this is the network proxy for skills: ask it for a full http:// address, or CONNECT for https');
  }
  return {
    destination: { host, port: url.port === '' ? 80 : Number(url.port) },
    path: url.pathname + url.search,
    hostHeader: url.host,
  };
}

/**
 * The network of one run's sandbox (DESIGN §14): an HTTP proxy on a unix socket that is
 * bound into the sandbox, reaching only what the policy allows, and logging every
 * connection. TLS passes through a CONNECT tunnel untouched; plain HTTP is forwarded.
 */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const { policy, log, runId } = options;
  const clock = options.clock ?? systemClock;
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const sockets = new Set<Duplex>();
  /** Connections from the sandbox; `sockets` holds these and the ones to destinations. */
  let clients = 0;

  const track = <T extends Duplex>(socket: T): T => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    return socket;
  };
  const idle = (socket: Socket) => {
    socket.setTimeout(idleTimeoutMs);
    socket.once('timeout', () => socket.destroy());
  };

  /** Reports one connection once, when it is refused or its destination socket closes. */
  const report = (destination: Destination | undefined, fields: Record<string, unknown>, startedAt: number) => {
    log.info(
      {
        runId,
        host: destination?.host.slice(0, 255),
        port: destination?.port,
        ...fields,
        durationMs: clock.now().getTime() - startedAt,
      },
      'skill network connection',
    );
  };
  const reportSocket = (destination: Destination, upstream: Socket, startedAt: number) => {
    let failure: string | undefined;
    let address: string | undefined;
    upstream.once('connect', () => {
      address = upstream.remoteAddress;
    });
    upstream.once('error', (error: NodeJS.ErrnoException) => {
      failure = error.code ?? error.message;
    });
    upstream.once('close', () =>
      report(
        destination,
        {
          allowed: true,
          address,
          bytesUp: upstream.bytesWritten,
          bytesDown: upstream.bytesRead,
          ...(failure ? { error: failure } : {}),
        },
        startedAt,
      ),
    );
  };

  /** Checks a destination, answering and reporting a refusal; the checked addresses otherwise. */
  const admit = async (find: () => Destination, refuse: (text: string) => void, startedAt: number) => {
    let destination: Destination | undefined;
    try {
      destination = find();
      return { destination, addresses: await checkDestination(policy, destination.host, destination.port, options.resolve) };
    } catch (error) {
      if (!(error instanceof EgressRefused)) throw error;
      refuse(error.message);
      report(destination, { allowed: false, reason: error.message, bytesUp: 0, bytesDown: 0 }, startedAt);
      return undefined;
    }
  };

  const tunnel = async (request: IncomingMessage, client: Duplex, head: Buffer) => {
    const startedAt = clock.now().getTime();
    const admitted = await admit(
      () => connectTarget(request.url ?? ''),
      (text) => answerAndClose(client, plainAnswer(403, text)),
      startedAt,
    );
    if (!admitted || client.destroyed) return;
    const { destination, addresses } = admitted;
    const upstream = track(connect({ host: destination.host, port: destination.port, lookup: pinnedLookup(addresses) }));
    idle(upstream);
    if (client instanceof Socket) idle(client);
    reportSocket(destination, upstream, startedAt);
    let established = false;
    upstream.once('connect', () => {
      established = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      // Piped both ways, each end is passed on as it comes, so nothing still in flight is cut.
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once('error', (error: NodeJS.ErrnoException) => {
      if (established) client.destroy();
      else
        answerAndClose(
          client,
          plainAnswer(502, `${destination.host}:${destination.port} could not be reached (${error.code ?? 'error'})`),
        );
    });
    client.once('close', () => upstream.destroy());
  };

  const forward = async (request: IncomingMessage, response: ServerResponse) => {
    const startedAt = clock.now().getTime();
    let target: ReturnType<typeof requestTarget> | undefined;
    const admitted = await admit(
      () => {
        target = requestTarget(request.url ?? '');
        return target.destination;
      },
      (text) =>
        response
          .writeHead(403, oneLine(text), { 'content-type': 'text/plain; charset=utf-8', connection: 'close' })
          .end(`${oneLine(text)}\n`),
      startedAt,
    );
    if (!admitted || !target || response.destroyed) return;
    const { destination, addresses } = admitted;
    const headers: Record<string, string | string[]> = { host: target.hostHeader, connection: 'close' };
    const named = new Set(
      (request.headers.connection ?? '')
        .toLowerCase()
        .split(',')
        .map((name) => name.trim()),
    );
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined && name !== 'host' && !HOP_BY_HOP.has(name) && !named.has(name)) headers[name] = value;
    }
    const outgoing = httpRequest({
      host: destination.host,
      port: destination.port,
      method: request.method,
      path: target.path,
      headers,
      setHost: false,
      agent: false,
      lookup: pinnedLookup(addresses),
    });
    outgoing.once('socket', (socket) => {
      track(socket);
      idle(socket);
      reportSocket(destination, socket, startedAt);
    });
    outgoing.on('response', (answer) => {
      const kept: string[] = [];
      for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) {
        const [name = '', value = ''] = [answer.rawHeaders[i], answer.rawHeaders[i + 1]];
        if (!HOP_BY_HOP.has(name.toLowerCase())) kept.push(name, value);
      }
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, kept);
      answer.pipe(response);
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (response.headersSent) return response.destroy();
      const text = oneLine(`${destination.host}:${destination.port} could not be reached (${error.code ?? 'error'})`);
      response.writeHead(502, text, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end(`${text}\n`);
    });
    response.once('close', () => outgoing.destroy());
    request.pipe(outgoing);
  };

  const http = createHttpServer({ requestTimeout: 0 }, (request, response) => {
    forward(request, response).catch(() => response.destroy());
  });
  http.timeout = idleTimeoutMs;
  http.on('connect', (request: IncomingMessage, client: Duplex, head: Buffer) => {
    tunnel(request, client, head).catch(() => client.destroy());
  });
  http.on('clientError', (_error, client: Duplex) => {
    if (client.writable) answerAndClose(client, plainAnswer(400, 'the proxy could not read this request'));
    else client.destroy();
  });

  // Half-open like Node's own HTTP server: a client that ends its side still gets the answer.
  const front = createServer({ allowHalfOpen: true }, (socket) => {
    if (clients >= maxConnections) {
      answerAndClose(
        track(socket),
        plainAnswer(503, `the sandbox already has ${maxConnections} connections open; close one and try again`),
      );
      return;
    }
    clients += 1;
    socket.once('close', () => {
      clients -= 1;
    });
    http.emit('connection', track(socket));
  });
  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen(options.socketPath, () => {
      front.off('error', reject);
      resolve();
    });
  });

  return {
    close: () =>
      new Promise<void>((resolve) => {
        front.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
