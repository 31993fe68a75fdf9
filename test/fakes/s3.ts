import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One stored object. */
export interface FakeObject {
  body: Buffer;
  lastModified: Date;
  etag: string;
}

export interface FakeS3 {
  /** The endpoint (path-style: `<url>/<bucket>/<key>`). */
  url: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  objects: Map<string, FakeObject>;
  /** Every request, as `METHOD /path?query`. */
  requests: string[];
  /** Makes an object look as if it was last written `ms` ago. */
  age(key: string, ms: number): void;
  close(): Promise<void>;
}

export interface FakeS3Options {
  bucket?: string;
  /** Most keys one ListObjectsV2 page holds, whatever the client asks (S3's own cap is 1,000). */
  pageSize?: number;
}

const XML = '<?xml version="1.0" encoding="UTF-8"?>\n';

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function sendError(response: ServerResponse, status: number, code: string, message: string, head = false): void {
  response.statusCode = status;
  response.setHeader('content-type', 'application/xml');
  // A HEAD answer has no body, so the SDK names the error by its status (NotFound).
  if (head) {
    response.end();
    return;
  }
  response.end(
    `${XML}<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message><RequestId>${randomUUID()}</RequestId></Error>`,
  );
}

/**
 * The body of an `aws-chunked` upload (what the SDK sends by default for a stream): hex
 * size lines (with an optional `;chunk-signature=`), data, and trailing checksum headers.
 */
function decodeChunked(raw: Buffer): { body: Buffer; trailers: Map<string, string> } {
  const parts: Buffer[] = [];
  const trailers = new Map<string, string>();
  let at = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd < 0) throw new Error('truncated aws-chunked body');
    const size = Number.parseInt(raw.subarray(at, lineEnd).toString('latin1').split(';')[0] ?? '', 16);
    if (!Number.isFinite(size)) throw new Error('bad aws-chunked size line');
    at = lineEnd + 2;
    if (size === 0) break;
    parts.push(raw.subarray(at, at + size));
    at += size + 2;
  }
  for (const line of raw.subarray(at).toString('latin1').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) trailers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return { body: Buffer.concat(parts), trailers };
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function objectHeaders(response: ServerResponse, object: FakeObject): void {
  response.setHeader('content-type', 'application/octet-stream');
  response.setHeader('content-length', object.body.length);
  response.setHeader('etag', object.etag);
  response.setHeader('last-modified', object.lastModified.toUTCString());
}

/**
 * A stand-in for an S3-compatible store on 127.0.0.1, reached path-style by the real
 * `@aws-sdk/client-s3`: PutObject (plain or aws-chunked bodies, with the SHA-256 checksum
 * checked when one is sent), GetObject, HeadObject, DeleteObject and ListObjectsV2 with
 * continuation tokens, one bucket, answers and errors in S3's XML. Requests must be signed
 * (SigV4) with its access key id; the signature itself is not recomputed.
 */
export async function fakeS3(options: FakeS3Options = {}): Promise<FakeS3> {
  const bucket = options.bucket ?? 'skillet-test';
  const pageSize = options.pageSize ?? 1000;
  const accessKeyId = 'FAKEACCESSKEY';
  const secretAccessKey = 'fake-secret-access-key';
  const objects = new Map<string, FakeObject>();
  const requests: string[] = [];

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const method = request.method ?? 'GET';
    requests.push(`${method} ${url.pathname}${url.search}`);
    response.setHeader('x-amz-request-id', randomUUID());
    const raw = await readBody(request);
    const head = method === 'HEAD';
    const authorization = request.headers.authorization ?? '';
    if (!authorization.startsWith(`AWS4-HMAC-SHA256 Credential=${accessKeyId}/`)) {
      sendError(response, 403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', head);
      return;
    }
    const [, bucketName = '', ...keyParts] = url.pathname.split('/');
    if (decodeURIComponent(bucketName) !== bucket) {
      sendError(response, 404, 'NoSuchBucket', 'The specified bucket does not exist', head);
      return;
    }
    const key = keyParts.map(decodeURIComponent).join('/');

    if (key === '') {
      if (method === 'GET' && url.searchParams.get('list-type') === '2') {
        listObjects(url.searchParams, response);
        return;
      }
      sendError(response, 501, 'NotImplemented', `${method} on the bucket is not supported here`);
      return;
    }

    if (method === 'PUT') {
      if (request.headers['x-amz-copy-source']) {
        sendError(response, 501, 'NotImplemented', 'CopyObject is not supported here');
        return;
      }
      const encoding = String(request.headers['content-encoding'] ?? '');
      const chunked =
        encoding.includes('aws-chunked') || String(request.headers['x-amz-content-sha256'] ?? '').startsWith('STREAMING-');
      const { body, trailers } = chunked ? decodeChunked(raw) : { body: raw, trailers: new Map<string, string>() };
      const declared = request.headers['x-amz-decoded-content-length'];
      if (chunked && declared !== undefined && Number(declared) !== body.length) {
        sendError(response, 400, 'IncompleteBody', 'The body is not as long as x-amz-decoded-content-length says');
        return;
      }
      const sha256 = String(request.headers['x-amz-checksum-sha256'] ?? trailers.get('x-amz-checksum-sha256') ?? '');
      if (sha256 && createHash('sha256').update(body).digest('base64') !== sha256) {
        sendError(response, 400, 'BadDigest', 'The SHA256 you specified did not match the calculated checksum.');
        return;
      }
      const etag = `"${createHash('md5').update(body).digest('hex')}"`;
      objects.set(key, { body, lastModified: new Date(), etag });
      response.setHeader('etag', etag);
      response.end();
      return;
    }

    if (method === 'DELETE') {
      objects.delete(key);
      response.statusCode = 204;
      response.end();
      return;
    }

    if (method === 'GET' || head) {
      const object = objects.get(key);
      if (!object) {
        sendError(response, 404, 'NoSuchKey', 'The specified key does not exist.', head);
        return;
      }
      objectHeaders(response, object);
      response.end(head ? undefined : object.body);
      return;
    }
    sendError(response, 405, 'MethodNotAllowed', `${method} is not allowed here`);
  }

  function listObjects(query: URLSearchParams, response: ServerResponse): void {
    const prefix = query.get('prefix') ?? '';
    const maxKeys = Math.min(Number(query.get('max-keys') ?? 1000), pageSize);
    const token = query.get('continuation-token');
    const after = token ? Buffer.from(token, 'base64url').toString('utf8') : (query.get('start-after') ?? '');
    const keys = [...objects.keys()].filter((key) => key.startsWith(prefix) && key > after).sort();
    const page = keys.slice(0, maxKeys);
    const truncated = keys.length > page.length;
    const contents = page
      .map((key) => {
        const object = objects.get(key) as FakeObject;
        return `<Contents><Key>${escapeXml(key)}</Key><LastModified>${object.lastModified.toISOString()}</LastModified><ETag>${escapeXml(object.etag)}</ETag><Size>${object.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
      })
      .join('');
    const next = truncated
      ? `<NextContinuationToken>${Buffer.from(page.at(-1) ?? '').toString('base64url')}</NextContinuationToken>`
      : '';
    response.setHeader('content-type', 'application/xml');
    response.end(
      `${XML}<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${escapeXml(bucket)}</Name><Prefix>${escapeXml(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${token ? `<ContinuationToken>${escapeXml(token)}</ContinuationToken>` : ''}${next}${contents}</ListBucketResult>`,
    );
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendError(response, 500, 'InternalError', (error as Error).message);
      else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bucket,
    accessKeyId,
    secretAccessKey,
    objects,
    requests,
    age(key, ms) {
      const object = objects.get(key);
      if (!object) throw new Error(`no object ${key}`);
      object.lastModified = new Date(object.lastModified.getTime() - ms);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
