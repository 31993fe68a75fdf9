import type { LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { ToolSpec } from '../../models/conversation.js';
import { ToolRefused } from '../../sandbox/confined-files.js';
import type { Resolve } from '../../sandbox/egress/address-guard.js';
import {
  checkDestination,
  type EgressPolicy,
  EgressRefused,
  normalHost,
  pinnedLookup,
} from '../../sandbox/egress/egress-policy.js';
import { htmlToText } from './html-text.js';

const MAX_REDIRECTS = 5;
const READ_CAP_BYTES = 1024 * 1024;
const SHOWN_CAP_CHARS = 100_000;
const TIMEOUT_MS = 30_000;
const USER_AGENT = 'Skillet-WebFetch/1';

export const WEB_FETCH_SPEC: ToolSpec = {
  name: 'web_fetch',
  description:
    'Fetch a web page or text file by its http or https address and read it as text (a page is reduced to its ' +
    'readable text, with links as [text](address)). Only the hosts this server allows can be reached; a refusal ' +
    'says why. At most 100 KB of text is shown, with a note when there is more.',
  inputSchema: {
    type: 'object',
    properties: { url: { type: 'string', description: 'e.g. https://docs.python.org/3/library/csv.html' } },
    required: ['url'],
  },
};

export interface WebFetchOptions {
  /** How long the whole fetch, redirects included, may take. */
  timeoutMs?: number;
  resolve?: Resolve;
}

/** An address the model gave or a redirect named, checked before anything is sent. */
function parsed(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new ToolRefused(`"${raw.slice(0, 200)}" is not a web address; give a full one such as https://example.com/page.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolRefused(`web_fetch reaches only http and https addresses, not ${url.protocol.slice(0, 20)}.`);
  }
  if (url.username || url.password) throw new ToolRefused('Addresses with a user name or password in them are not fetched.');
  return url;
}

async function checked(url: URL, policy: EgressPolicy, resolve: Resolve | undefined): Promise<LookupAddress[]> {
  const host = normalHost(url.hostname) ?? url.hostname;
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  try {
    return await checkDestination(policy, host, port, resolve);
  } catch (error) {
    if (error instanceof EgressRefused) throw new ToolRefused(`${error.message}.`);
    throw error;
  }
}

function send(url: URL, addresses: LookupAddress[], signal: AbortSignal): Promise<IncomingMessage> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      headers: {
        'user-agent': USER_AGENT,
        accept: 'text/html, text/plain, application/json, text/*;q=0.9, */*;q=0.5',
        'accept-encoding': 'gzip, deflate, br',
      },
      // A fresh socket to an address already checked: none reused from another host, none re-resolved.
      agent: false,
      lookup: pinnedLookup(addresses),
      signal,
    });
    outgoing.once('response', resolve);
    outgoing.once('error', reject);
    outgoing.end();
  });
}

function decoded(response: IncomingMessage): Readable {
  const encoding = (response.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return response.pipe(createGunzip());
  if (encoding === 'deflate') return response.pipe(createInflate());
  if (encoding === 'br') return response.pipe(createBrotliDecompress());
  return response;
}

/** The body, decoded, up to the read cap: what is past it is never read. */
async function body(response: IncomingMessage): Promise<{ bytes: Buffer; cut: boolean }> {
  const stream = decoded(response);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const piece = chunk as Buffer;
      chunks.push(piece.subarray(0, READ_CAP_BYTES - size));
      size += piece.length;
      if (size >= READ_CAP_BYTES) return { bytes: Buffer.concat(chunks), cut: size > READ_CAP_BYTES };
    }
    return { bytes: Buffer.concat(chunks), cut: false };
  } finally {
    stream.destroy();
    response.destroy();
  }
}

const TEXT_TYPES = /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|ecmascript|x-www-form-urlencoded|ld\+json)\b)/;

function asText(url: URL, response: IncomingMessage, bytes: Buffer): string {
  const type = (response.headers['content-type'] ?? '').toLowerCase();
  const mime = type.split(';')[0]?.trim() ?? '';
  const looksBinary = bytes.subarray(0, 4096).includes(0);
  if ((mime !== '' && !TEXT_TYPES.test(mime)) || (mime === '' && looksBinary)) {
    throw new ToolRefused(`${url.href} is ${mime || 'binary data'}, not text or a web page; web_fetch shows only text.`);
  }
  const charset = /charset="?([\w.:-]+)/.exec(type)?.[1] ?? 'utf-8';
  let text: string;
  try {
    text = new TextDecoder(charset).decode(bytes);
  } catch {
    text = new TextDecoder('utf-8').decode(bytes);
  }
  const html =
    mime === 'text/html' || mime === 'application/xhtml+xml' || (mime === '' && /^\s*<(!doctype html|html)/i.test(text));
  return html ? htmlToText(text, url) : text;
}

function failure(url: URL, error: NodeJS.ErrnoException, timedOut: boolean, timeoutMs: number): ToolRefused {
  if (timedOut) return new ToolRefused(`${url.host} did not answer within ${timeoutMs / 1000} seconds.`);
  if (error.code === 'ECONNREFUSED') return new ToolRefused(`${url.host} refused the connection; nothing is listening there.`);
  if (error.code === 'ECONNRESET') return new ToolRefused(`${url.host} closed the connection before answering.`);
  if (error.code?.startsWith('ERR_TLS') || error.code?.includes('CERT')) {
    return new ToolRefused(`${url.host}'s certificate could not be verified (${error.code}); the page was not fetched.`);
  }
  if (error.code === 'Z_DATA_ERROR' || error.code === 'ERR_PADDING_1') {
    return new ToolRefused(`${url.href} sent a compressed answer that could not be decoded.`);
  }
  return new ToolRefused(`${url.href} could not be fetched (${(error.code ?? error.message).slice(0, 100)}).`);
}

/**
 * The web_fetch tool's work, done by the server rather than in the sandbox, under the
 * sandbox's network policy: the address of every hop is checked before it is connected to.
 */
export async function webFetch(
  input: Record<string, unknown>,
  policy: EgressPolicy,
  signal: AbortSignal,
  options: WebFetchOptions = {},
): Promise<string> {
  const raw = input.url;
  if (typeof raw !== 'string' || raw.trim() === '') throw new ToolRefused('`url` is required and must be a web address.');
  if (raw.length > 8192) throw new ToolRefused('`url` is longer than 8,192 characters; give a shorter address.');
  const timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  let url = parsed(raw.trim());
  for (let hop = 0; ; hop++) {
    const addresses = await checked(url, policy, options.resolve);
    let response: IncomingMessage;
    let read: { bytes: Buffer; cut: boolean };
    try {
      response = await send(url, addresses, deadline);
      const location = response.headers.location;
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && location) {
        response.destroy();
        const next = parsed(location, url);
        if (hop >= MAX_REDIRECTS) {
          throw new ToolRefused(`Stopped after ${MAX_REDIRECTS} redirects: ${url.href} redirects again, to ${next.href}.`);
        }
        url = next;
        continue;
      }
      read = await body(response);
    } catch (error) {
      // The run itself was stopped: not the model's to hear about.
      if (signal.aborted || error instanceof ToolRefused) throw error;
      throw failure(url, error as NodeJS.ErrnoException, deadline.aborted, timeoutMs);
    }
    const text = asText(url, response, read.bytes);
    const notes: string[] = [];
    if (read.cut) notes.push(`[cut: the answer is larger than ${READ_CAP_BYTES / 1024 / 1024} MB; only its first MB was read]`);
    if (text.length > SHOWN_CAP_CHARS) {
      notes.push(`[cut: the text has ${text.length} characters; only the first ${SHOWN_CAP_CHARS} are shown]`);
    }
    const status = `${response.statusCode ?? 0} ${response.statusMessage ?? ''}`.trim();
    return [`${url.href} answered ${status}.`, '', text.slice(0, SHOWN_CAP_CHARS), ...notes].join('\n');
  }
}
