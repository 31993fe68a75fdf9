import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { boundedLines, LineTooLong } from '../../src/runtime/protocol-lines.js';

async function linesOf(chunks: (string | Buffer)[], limit: number): Promise<string[]> {
  const stream = new PassThrough();
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  const lines: string[] = [];
  for await (const line of boundedLines(stream, limit)) lines.push(line);
  return lines;
}

describe('reading protocol lines', () => {
  it('splits lines across chunks and keeps multi-byte characters whole', async () => {
    const euro = Buffer.from('€');
    const chunks = ['{"a":1}\n{"b":', '2}\n', euro.subarray(0, 1), Buffer.concat([euro.subarray(1), Buffer.from('\nlast')])];
    expect(await linesOf(chunks, 100)).toEqual(['{"a":1}', '{"b":2}', '€', 'last']);
  });

  it('takes a line of exactly the limit and refuses one byte more, without waiting for its newline', async () => {
    expect(await linesOf(['x'.repeat(10), '\n'], 10)).toEqual(['x'.repeat(10)]);
    await expect(linesOf(['x'.repeat(6), 'x'.repeat(5)], 10)).rejects.toThrow(LineTooLong);
    await expect(linesOf([`${'x'.repeat(11)}\n`], 10)).rejects.toThrow(LineTooLong);
  });
});
