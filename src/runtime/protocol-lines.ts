import type { Readable } from 'node:stream';

/** A skill sent a line longer than it may: nothing more of it is read. */
export class LineTooLong extends Error {
  constructor(readonly limitBytes: number) {
    super(`a protocol line went past ${limitBytes} bytes`);
  }
}

const NEWLINE = 0x0a;

/**
 * The lines of a child's output, each decoded only once it is complete. A line is never
 * held beyond `maxLineBytes`: past that the reader throws, so a skill that prints without
 * newlines costs the server at most that much memory. Reading waits for the consumer
 * between lines, which holds the child back through the pipe.
 */
export async function* boundedLines(stream: Readable, maxLineBytes: number): AsyncGenerator<string> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      const lineBytes = pendingBytes + (end - start);
      if (lineBytes > maxLineBytes) throw new LineTooLong(maxLineBytes);
      const tail = chunk.subarray(start, end);
      const line = pendingBytes === 0 ? tail : Buffer.concat([...pending, tail], lineBytes);
      pending = [];
      pendingBytes = 0;
      start = end + 1;
      yield line.toString('utf8');
    }
    if (start < chunk.length) {
      pendingBytes += chunk.length - start;
      if (pendingBytes > maxLineBytes) throw new LineTooLong(maxLineBytes);
      pending.push(chunk.subarray(start));
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending, pendingBytes).toString('utf8');
}
