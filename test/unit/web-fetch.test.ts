import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-load.js';
import { htmlToText } from '../../src/runtime/agent/html-text.js';
import { WEB_FETCH_SPEC, webFetch } from '../../src/runtime/agent/web-fetch.js';
import { ToolRefused } from '../../src/sandbox/confined-files.js';
import { type EgressPolicy, egressPolicyOf } from '../../src/sandbox/egress/egress-policy.js';

/** web_fetch against servers of its own on 127.0.0.1, reachable only with the private-address switch on. */

type Handler = (request: IncomingMessage, response: ServerResponse) => void;
const routes: Record<string, Handler> = {};
let server: Server;
let port: number;
let base: string;
let dir: string;
/** SKILL_ALLOWED_HOSTS=127.0.0.1 and WEBHOOK_ALLOW_PRIVATE=true, as an operator would set them, plus the test port. */
let open: EgressPolicy;
/** The same hosts, without the private-address switch. */
let strict: EgressPolicy;

const PAGE = `<!doctype html><html><head><title>The &amp; Page</title>
<style>body { color: red }</style><script>var secret = "never shown";</script></head>
<body><nav><a href="/home">Home</a></nav>
<h1>Main   heading</h1><p>First paragraph with <b>bold</b> and a <a href="other.html?a=1&amp;b=2">relative link</a>.</p>
<ul><li>one</li><li>two &lt;three&gt; &#8212; &#x263A;</li></ul>
<!-- a comment --><p>Second<br>line</p><pre>  keep
    spacing</pre><a href="javascript:alert(1)">not a link</a></body></html>`;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillet-web-fetch-'));
  server = createServer((request, response) => {
    const handler = routes[new URL(request.url ?? '/', 'http://x').pathname];
    if (handler) handler(request, response);
    else response.writeHead(404, { 'content-type': 'text/plain' }).end('no such page');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  const withSwitch = await loadConfig({ DATA_DIR: dir, SKILL_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE: 'true' });
  const withoutSwitch = await loadConfig({ DATA_DIR: dir, SKILL_ALLOWED_HOSTS: '127.0.0.1' });
  open = { ...egressPolicyOf(withSwitch), ports: [80, 443, port] };
  strict = { ...egressPolicyOf(withoutSwitch), ports: [80, 443, port] };

  routes['/page'] = (_request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
  routes['/text'] = (request, response) =>
    response.writeHead(200, { 'content-type': 'text/plain' }).end(`plain ${request.headers['user-agent']}`);
  routes['/json'] = (_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"a": [1, 2]}');
  routes['/latin1'] = (_request, response) =>
    response.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  routes['/gzip'] = (_request, response) =>
    response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(gzipSync('unzipped text'));
  routes['/bad-gzip'] = (_request, response) =>
    response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end('not gzip at all');
  routes['/png'] = (_request, response) =>
    response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
  routes['/missing'] = (_request, response) => response.writeHead(404, { 'content-type': 'text/plain' }).end('gone');
  routes['/huge'] = (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    // 3 MB, written as the reader asks: past the first MB nothing need be read.
    const chunk = 'x'.repeat(64 * 1024);
    let left = 48;
    const more = () => {
      while (left > 0) {
        left -= 1;
        if (!response.write(chunk)) return void response.once('drain', more);
      }
      response.end();
    };
    more();
  };
  routes['/long'] = (_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('y'.repeat(150_000));
  routes['/silent'] = () => undefined;
  routes['/redirect'] = (request, response) => {
    const query = new URL(request.url ?? '/', 'http://x').searchParams;
    const left = Number(query.get('left') ?? '0');
    const location = query.get('to') ?? (left > 0 ? `/redirect?left=${left - 1}` : '/text');
    response.writeHead(302, { location }).end();
  };
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const fetchIt = (url: unknown, policy = open, signal = new AbortController().signal, timeoutMs?: number) =>
  webFetch({ url }, policy, signal, { timeoutMs });

async function refusal(work: Promise<string>): Promise<string> {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ToolRefused);
  return (error as Error).message;
}

describe('web_fetch', () => {
  it('offers one url input', () => {
    expect(WEB_FETCH_SPEC).toMatchObject({
      name: 'web_fetch',
      inputSchema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
    });
  });

  it('reduces a page to its readable text, with absolute links and without scripts or styles', async () => {
    const text = await fetchIt(`${base}/page`);
    expect(text).toBe(
      [
        `${base}/page answered 200 OK.`,
        '',
        'Title: The & Page',
        '',
        `[Home](${base}/home)`,
        '',
        '# Main heading',
        '',
        `First paragraph with bold and a [relative link](${base}/other.html?a=1&b=2).`,
        '',
        '- one',
        '- two <three> — ☺',
        '',
        'Second',
        'line',
        '',
        '  keep',
        '    spacing',
        '',
        'not a link',
      ].join('\n'),
    );
  });

  it('returns text and JSON as they are, in their charset, decompressed, with the status of an error page', async () => {
    expect(await fetchIt(`${base}/text`)).toBe(`${base}/text answered 200 OK.\n\nplain Skillet-WebFetch/1`);
    expect(await fetchIt(`${base}/json`)).toContain('{"a": [1, 2]}');
    expect(await fetchIt(`${base}/latin1`)).toContain('café');
    expect(await fetchIt(`${base}/gzip`)).toContain('\n\nunzipped text');
    expect(await fetchIt(`${base}/missing`)).toBe(`${base}/missing answered 404 Not Found.\n\ngone`);
  });

  it('reads at most 1 MB and shows at most 100,000 characters, saying so', async () => {
    const huge = await fetchIt(`${base}/huge`);
    expect(huge).toContain('[cut: the answer is larger than 1 MB; only its first MB was read]');
    const long = await fetchIt(`${base}/long`);
    expect(long).toContain('[cut: the text has 150000 characters; only the first 100000 are shown]');
    expect(long.length).toBeLessThan(100_200);
  });

  it('follows up to 5 redirects and refuses a sixth', async () => {
    expect(await fetchIt(`${base}/redirect?left=4`)).toBe(`${base}/text answered 200 OK.\n\nplain Skillet-WebFetch/1`);
    expect(await refusal(fetchIt(`${base}/redirect?left=5`))).toBe(
      `Stopped after 5 redirects: ${base}/redirect?left=0 redirects again, to ${base}/text.`,
    );
  });

  it('checks every hop: a redirect to a host, port or scheme not allowed is refused before it is followed', async () => {
    const to = (target: string) => fetchIt(`${base}/redirect?to=${encodeURIComponent(target)}`);
    expect(await refusal(to(`http://localhost:${port}/text`))).toBe(
      'localhost is not among the hosts this server allows skills to reach; an operator can add it to SKILL_ALLOWED_HOSTS.',
    );
    expect(await refusal(to('http://127.0.0.1:6379/'))).toBe(
      `127.0.0.1 was asked for on port 6379; skills may reach only ports 80, 443 and ${port}.`,
    );
    expect(await refusal(to('file:///etc/passwd'))).toBe('web_fetch reaches only http and https addresses, not file:.');
    expect(await refusal(to('http://[::1:bad/'))).toContain('is not a web address');
  });

  it("refuses a private address without the operator's switch, and a host not listed", async () => {
    expect(await refusal(fetchIt(`${base}/text`, strict))).toBe(
      '127.0.0.1 leads to 127.0.0.1, a private or local address that skills may not reach; only public addresses are allowed.',
    );
    expect(await refusal(fetchIt(`http://localhost:${port}/text`))).toContain('localhost is not among the hosts');
    expect(await refusal(fetchIt('https://example.org/', { ...open, allowedHosts: [] }))).toBe(
      'example.org cannot be reached: this server gives skills no network access; an operator can allow hosts with SKILL_ALLOWED_HOSTS.',
    );
  });

  it.each([
    ['no url', undefined, '`url` is required and must be a web address.'],
    ['a number', 42, '`url` is required and must be a web address.'],
    ['blanks', '   ', '`url` is required and must be a web address.'],
    ['words', 'not a url', '"not a url" is not a web address; give a full one such as https://example.com/page.'],
    ['ftp', 'ftp://127.0.0.1/file', 'web_fetch reaches only http and https addresses, not ftp:.'],
    ['credentials', 'http://user:secret@127.0.0.1/', 'Addresses with a user name or password in them are not fetched.'],
    [
      '9,000 characters',
      `http://127.0.0.1/${'a'.repeat(9000)}`,
      '`url` is longer than 8,192 characters; give a shorter address.',
    ],
  ])('refuses %s plainly', async (_label, url, message) => {
    expect(await refusal(fetchIt(url))).toBe(message);
  });

  it('refuses what is not text, and says when a server cannot be reached, answers too slowly or sends garbage', async () => {
    expect(await refusal(fetchIt(`${base}/png`))).toBe(
      `${base}/png is image/png, not text or a web page; web_fetch shows only text.`,
    );
    expect(await refusal(fetchIt(`${base}/bad-gzip`))).toBe(
      `${base}/bad-gzip sent a compressed answer that could not be decoded.`,
    );
    expect(await refusal(fetchIt(`${base}/silent`, open, new AbortController().signal, 200))).toBe(
      `127.0.0.1:${port} did not answer within 0.2 seconds.`,
    );
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await refusal(fetchIt(`http://127.0.0.1:${closedPort}/`, { ...open, ports: [closedPort] }))).toBe(
      `127.0.0.1:${closedPort} refused the connection; nothing is listening there.`,
    );
  });

  it('stops when the run stops, without a message for the model', async () => {
    const controller = new AbortController();
    const fetching = fetchIt(`${base}/silent`, open, controller.signal);
    controller.abort();
    const error = await fetching.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).not.toBeInstanceOf(ToolRefused);
    expect((error as Error).name).toBe('AbortError');
  });
});

describe('a page as text', () => {
  it.each([
    ['a page of open tags', '<'.repeat(1_000_000)],
    ['an unclosed attribute', `<a href="${'x'.repeat(1_000_000)}`],
    ['many titles', '<title'.repeat(150_000)],
    ['many entities', '&amp'.repeat(250_000)],
    ['an unclosed script', `<script>${'<p>'.repeat(300_000)}`],
  ])('reads %s in one pass', (_name, html) => {
    const started = performance.now();
    htmlToText(html, new URL('http://127.0.0.1/'));
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
