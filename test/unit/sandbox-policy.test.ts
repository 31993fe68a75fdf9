import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { boundedLines, LineTooLong } from '../../src/skills/protocol-lines.js';
import { detectSandbox, type SandboxProbe } from '../../src/skills/sandbox.js';

const machine = (found: Partial<SandboxProbe>) => async (): Promise<SandboxProbe> => ({
  bwrap: '/usr/bin/bwrap',
  failure: undefined,
  runtimeFiles: ['/usr/bin/node'],
  prlimit: '/usr/bin/prlimit',
  ...found,
});
const noNamespaces = machine({ failure: 'setting up uid map: Permission denied' });

describe('choosing the sandbox', () => {
  it('uses bubblewrap where it works, for every skill, without a warning', async () => {
    expect(await detectSandbox('auto', machine({}))).toMatchObject({ kind: 'bwrap', runsUntrusted: true, warning: undefined });
    expect(await detectSandbox('bwrap', machine({}))).toMatchObject({ kind: 'bwrap', bwrapPath: '/usr/bin/bwrap' });
  });

  it('falls back to built-in skills only where bubblewrap is missing or refused, and says how to enable it', async () => {
    for (const probe of [machine({ bwrap: undefined, failure: 'bwrap is not installed' }), noNamespaces]) {
      const sandbox = await detectSandbox('auto', probe);
      expect(sandbox).toMatchObject({ kind: 'permissions', runsUntrusted: false });
      expect(sandbox.warning).toMatch(/installed skills are refused.*apt-get install bubblewrap.*SKILL_SANDBOX=none/);
    }
  });

  it('refuses to start with SKILL_SANDBOX=bwrap where it cannot work', async () => {
    await expect(detectSandbox('bwrap', noNamespaces)).rejects.toThrow(ConfigError);
  });

  it('runs every skill unconfined with SKILL_SANDBOX=none, loudly', async () => {
    const sandbox = await detectSandbox('none', machine({}));
    expect(sandbox).toMatchObject({ kind: 'permissions', runsUntrusted: true });
    expect(sandbox.warning).toMatch(/SKILL_SANDBOX=none/);
  });

  it('says when prlimit is missing too', async () => {
    expect((await detectSandbox('auto', machine({ prlimit: undefined }))).warning).toMatch(/prlimit/);
  });
});

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
