import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, createServer, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type Clock, systemClock } from '../../clock.js';
import type { Resolve } from './address-guard.js';
import { RunQuota, SandboxConnection } from './egress-caps.js';
import { checkDestination, type EgressPolicy, EgressRefused, pinnedLookup } from './egress-policy.js';
import {
  answerAndClose,
  connectTarget,
  type Destination,
  HOP_BY_HOP,
  oneLine,
  plainAnswer,
  requestTarget,
} from './egress-requests.js';

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
  const quota = new RunQuota(policy.bytesPerRun);
  /** What each socket from the sandbox is, for the caps: the tunnels and requests get the socket. */
  const connections = new WeakMap<Duplex, SandboxConnection>();
  const connectionOf = (socket: Duplex): SandboxConnection => {
    const connection = connections.get(socket);
    // Every socket the HTTP server sees came through the front one, which made its connection.
    if (!connection) throw new Error('the proxy was handed a socket it did not accept');
    return connection;
  };
  /** Connections from the sandbox; `sockets` holds these and the ones to destinations. */
  let clients = 0;
  /** Set by close(): a destination checked while it ran is not connected to after it. */
  let closed = false;

  const track = <T extends Duplex>(socket: T): T => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    return socket;
  };
  const idle = (socket: Socket, connection: SandboxConnection) => {
    socket.setTimeout(idleTimeoutMs);
    socket.once('timeout', () => {
      connection.closedBy ??= 'idle';
      socket.destroy();
    });
  };

  /** Reports one connection once, when it is refused or its destination socket closes. */
  const report = (destination: Destination | undefined, fields: Record<string, unknown>, startedAt: number) => {
    log.info(
      {
        runId,
        host: destination?.host.slice(0, 255),
        port: destination?.port,
        ...fields,
        durationMs: clock.nowMs() - startedAt,
      },
      'skill network connection',
    );
  };
  const reportSocket = (destination: Destination, upstream: Socket, startedAt: number, connection: SandboxConnection) => {
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
          // Said only when the proxy closed it for a cap; otherwise an end closed it.
          ...(connection.closedBy ? { closed: connection.closedBy } : {}),
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
      quota.admit();
      return { destination, addresses: await checkDestination(policy, destination.host, destination.port, options.resolve) };
    } catch (error) {
      if (!(error instanceof EgressRefused)) throw error;
      refuse(error.message);
      report(destination, { allowed: false, reason: error.message, bytesUp: 0, bytesDown: 0 }, startedAt);
      return undefined;
    }
  };

  const tunnel = async (request: IncomingMessage, client: Duplex, head: Buffer) => {
    const startedAt = clock.nowMs();
    const admitted = await admit(
      () => connectTarget(request.url ?? ''),
      (text) => answerAndClose(client, plainAnswer(403, text)),
      startedAt,
    );
    if (!admitted) return;
    if (client.destroyed || closed) return void client.destroy();
    const { destination, addresses } = admitted;
    const upstream = track(connect({ host: destination.host, port: destination.port, lookup: pinnedLookup(addresses) }));
    const connection = connectionOf(client);
    idle(upstream, connection);
    if (client instanceof Socket) idle(client, connection);
    reportSocket(destination, upstream, startedAt, connection);
    let established = false;
    upstream.once('connect', () => {
      established = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      // Piped both ways, each end is passed on as it comes, so nothing still in flight is cut.
      upstream.pipe(client);
      client.pipe(upstream);
      quota.meter(upstream, client, connection);
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
    const startedAt = clock.nowMs();
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
    if (closed) return void response.destroy();
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
    const connection = connectionOf(request.socket);
    outgoing.once('socket', (socket) => {
      track(socket);
      idle(socket, connection);
      reportSocket(destination, socket, startedAt, connection);
      quota.meter(socket, request, connection);
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
    connections.set(socket, new SandboxConnection(socket, policy.connectionLifetimeMs));
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
    // Settles once every connection has closed, and so been reported: a destination socket
    // may close a moment after the sandbox's side, and the run's log is whole only then.
    close: async () => {
      closed = true;
      // Not events.once: it would reject on the 'error' a destroyed socket may emit first.
      const open = [...sockets].map((socket) => new Promise((resolve) => socket.once('close', resolve)));
      const stopped = new Promise<void>((resolve) => front.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await Promise.all([stopped, ...open]);
    },
  };
}
