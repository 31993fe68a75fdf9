import { InvalidInput } from '../errors.js';

/** The one part of a form upload that is kept: its body is read as it is consumed, never held whole. */
export interface FormFile {
  filename: string | undefined;
  contentType: string | undefined;
  body: AsyncGenerator<Buffer>;
}

/** Before the first boundary, in part headers, and in the other fields: small things only. */
const PREAMBLE_MAX = 16 * 1024;
const HEADERS_MAX = 16 * 1024;
const OTHER_FIELDS_MAX = 1024 * 1024;
const FIELD_NAME = 'file';

function malformed(why: string): InvalidInput {
  return new InvalidInput(
    `The upload could not be read as a form (${why}). Send the file in a form field named "${FIELD_NAME}", or as the request body with an x-filename header.`,
  );
}

/** Reads a byte stream up to markers, keeping only what it has not handed out yet. */
class Cursor {
  #buffer: Buffer = Buffer.alloc(0);
  readonly #source: AsyncIterator<Buffer>;

  constructor(source: AsyncIterable<Buffer>) {
    this.#source = source[Symbol.asyncIterator]();
  }

  async #more(): Promise<void> {
    const next = await this.#source.next();
    if (next.done) throw malformed('it ended in the middle');
    this.#buffer = this.#buffer.length === 0 ? next.value : Buffer.concat([this.#buffer, next.value]);
  }

  /** The bytes before `marker`, at most `max` of them; the marker is consumed too. */
  async until(marker: Buffer, max: number, what: string): Promise<Buffer> {
    for (;;) {
      const at = this.#buffer.indexOf(marker);
      if (at >= 0 && at <= max) {
        const before = this.#buffer.subarray(0, at);
        this.#buffer = this.#buffer.subarray(at + marker.length);
        return before;
      }
      if (this.#buffer.length > max + marker.length) throw malformed(`${what} is too long`);
      await this.#more();
    }
  }

  /** The bytes before `marker`, handed out as they arrive; the marker is consumed at the end. */
  async *stream(marker: Buffer): AsyncGenerator<Buffer> {
    for (;;) {
      const at = this.#buffer.indexOf(marker);
      if (at >= 0) {
        if (at > 0) yield this.#buffer.subarray(0, at);
        this.#buffer = this.#buffer.subarray(at + marker.length);
        return;
      }
      // All but a marker's length less one byte cannot hold the start of the marker.
      const safe = this.#buffer.length - marker.length + 1;
      if (safe > 0) {
        yield this.#buffer.subarray(0, safe);
        this.#buffer = this.#buffer.subarray(safe);
      }
      await this.#more();
    }
  }
}

/** The boundary a multipart Content-Type names (RFC 2046: 1 to 70 characters). */
export function boundaryOf(contentType: string): string {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^;\s]{1,70}))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) throw malformed('its Content-Type names no boundary');
  return boundary;
}

/** One parameter of a Content-Disposition header: quoted, a token, or RFC 5987's `name*=UTF-8''…`. */
function parameter(header: string, name: string): string | undefined {
  const extended = new RegExp(`;\\s*${name}\\*=([^']*)'[^']*'([^;\\s]+)`, 'i').exec(header);
  if (extended?.[2]) {
    try {
      return decodeURIComponent(extended[2]);
    } catch {
      // Not valid percent-encoding: fall back on the plain parameter.
    }
  }
  const quoted = new RegExp(`;\\s*${name}="((?:[^"\\\\]|\\\\.)*)"`, 'i').exec(header);
  if (quoted) return quoted[1]?.replace(/\\(.)/g, '$1');
  return new RegExp(`;\\s*${name}=([^;\\s]+)`, 'i').exec(header)?.[1];
}

function headersOf(block: string[]): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of block) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

/**
 * Finds the `file` field of a multipart/form-data body and hands back its body as a stream
 * of the request's own chunks. Other fields before it are read and dropped (at most
 * OTHER_FIELDS_MAX bytes of them); whatever follows it is never read.
 */
export async function formFileOf(source: AsyncIterable<Buffer>, boundary: string): Promise<FormFile> {
  const cursor = new Cursor(source);
  const crlf = Buffer.from('\r\n');
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The first boundary may open the body, without the line break the others follow.
  await cursor.until(delimiter.subarray(2), PREAMBLE_MAX, 'the text before the first field');
  let skipped = 0;
  for (;;) {
    const rest = await cursor.until(crlf, 1024, 'a boundary line');
    if (rest.toString('latin1').startsWith('--')) throw malformed(`it has no field named "${FIELD_NAME}"`);
    const lines: string[] = [];
    let headerBytes = 0;
    for (;;) {
      const line = await cursor.until(crlf, HEADERS_MAX - headerBytes, "a field's headers");
      if (line.length === 0) break;
      headerBytes += line.length + 2;
      lines.push(line.toString('utf8'));
    }
    const headers = headersOf(lines);
    const disposition = headers.get('content-disposition') ?? '';
    const body = cursor.stream(delimiter);
    if (parameter(disposition, 'name') === FIELD_NAME) {
      return { filename: parameter(disposition, 'filename'), contentType: headers.get('content-type'), body };
    }
    for await (const chunk of body) {
      skipped += chunk.length;
      if (skipped > OTHER_FIELDS_MAX) throw malformed(`the fields other than "${FIELD_NAME}" are too large`);
    }
  }
}
