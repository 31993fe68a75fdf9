import type { Duplex } from 'node:stream';
import { EgressRefused, normalHost } from './egress-policy.js';

/** What the egress proxy reads from a request, and the answers it gives when it will not forward one. */

/** Headers about one hop, not the request: a proxy drops them (RFC 9110 §7.6.1). */
export const HOP_BY_HOP = new Set([
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
export function oneLine(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 400);
}

/**
 * A refusal as a whole HTTP answer. The reason is the status line's phrase as well as the
 * body: clients such as Python's urllib show only the phrase when a CONNECT fails.
 */
export function plainAnswer(status: number, text: string): string {
  const line = oneLine(text);
  const body = `${line}\n`;
  return `HTTP/1.1 ${status} ${line}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`;
}

export interface Destination {
  host: string;
  port: number;
}

/** `host:port` of a CONNECT, with the port required. */
export function connectTarget(authority: string): Destination {
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
export function answerAndClose(socket: Duplex, answer: string): void {
  socket.once('finish', () => socket.destroy());
  socket.end(answer);
}

/** The destination of a plain-HTTP request, which a proxy receives as a full URL. */
export function requestTarget(raw: string): { destination: Destination; path: string; hostHeader: string } {
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
