import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { doctorText } from '../../src/cli/doctor.js';
import { assistantComputerPrompt, computerPrompt } from '../../src/computer/computer-prompt.js';
import { inspectSoftware, readSoftwareList, SANDBOX_PYTHON, type SoftwareItem } from '../../src/skills/computer-software.js';

const item = (provides: string, check: SoftwareItem['check'], optional = false): SoftwareItem => ({
  provides,
  package: `pkg-${provides}`,
  check,
  ...(optional ? { optional } : {}),
});

describe('the computer software list', () => {
  it('is one readable list, every entry naming a Debian package and a way to check it', () => {
    const list = readSoftwareList();
    expect(list.length).toBeGreaterThan(10);
    for (const entry of list) {
      expect(entry.package).toMatch(/^[a-z0-9][a-z0-9+.-]+$/);
      expect('command' in entry.check || 'python' in entry.check).toBe(true);
    }
    expect(list.map((entry) => entry.package)).toEqual(expect.arrayContaining(['python3-pypdf', 'python3-openpyxl', 'qpdf']));
  });

  it('reads a list from any file', async () => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'skillet-software-')), 'list.json');
    await writeFile(file, JSON.stringify([item('sh', { command: 'sh' })]));
    expect(readSoftwareList(file)).toEqual([item('sh', { command: 'sh' })]);
  });

  it.runIf(existsSync(SANDBOX_PYTHON))(
    'finds commands on the sandbox PATH and modules its Python imports, and says which are missing',
    async () => {
      const found = await inspectSoftware([
        item('sh', { command: 'sh' }),
        item('nothing', { command: 'no-such-tool-skillet' }),
        item('json', { python: 'json' }),
        item('no-module', { python: 'no_such_module_skillet' }),
      ]);
      expect(found.map((entry) => [entry.provides, entry.present])).toEqual([
        ['sh', true],
        ['nothing', false],
        ['json', true],
        ['no-module', false],
      ]);
    },
  );

  it.runIf(existsSync(SANDBOX_PYTHON))('asks Python without holding up the event loop while it answers', async () => {
    let turns = 0;
    const ticking = setInterval(() => turns++, 1);
    try {
      await inspectSoftware([item('json', { python: 'json' })]);
    } finally {
      clearInterval(ticking);
    }
    expect(turns).toBeGreaterThan(0);
  });

  it('says what the computer has installed in the prompt, from what the host was found to have', () => {
    const prompt = computerPrompt({ slug: 'demo', uploads: [], allowedHosts: [], installed: ['Python 3', 'qpdf'] });
    expect(prompt).toContain('Installed: Python 3, qpdf. There is no network.');
    expect(assistantComputerPrompt(['pandoc'], ['example.com'])).toContain(
      'Installed: pandoc. The network reaches only these hosts',
    );
  });

  it('counts every Python module missing where there is no Python at all', async () => {
    expect(await inspectSoftware([item('json', { python: 'json' })], '/nowhere/python3')).toMatchObject([{ present: false }]);
  });
});

describe('skillet doctor', () => {
  const sandbox = {
    kind: 'bwrap' as const,
    runsUntrusted: true,
    kernelLimits: true,
    boundedSpace: true,
    prlimit: true,
    setpriv: true,
  };

  it('says what is missing and the one command that installs it', () => {
    const text = doctorText({
      sandbox,
      software: [
        { ...item('bash', { command: 'bash' }), present: true },
        { ...item('pypdf', { python: 'pypdf' }), present: false },
        { ...item('LibreOffice', { command: 'soffice' }, true), present: false },
      ],
      ready: false,
    });
    expect(text).toMatch(/ok {7}bash/);
    expect(text).toMatch(/MISSING {2}pypdf \(install with: apt-get install pkg-pypdf\)/);
    expect(text).toMatch(/optional LibreOffice/);
    expect(text).toMatch(/Not ready\. To install what is missing: apt-get install pkg-pypdf\n$/);
  });

  it('says how to grant cgroup control when the kernel does not hold runs', () => {
    const text = doctorText({ sandbox: { ...sandbox, kernelLimits: false }, software: [], ready: false });
    expect(text).toMatch(/MISSING {2}cgroup control: a watchdog stands in.*Delegate=yes/);
    expect(text).toMatch(/Not ready: see the sandbox lines above\./);
  });

  it('says what a missing setpriv risks and how to get it', () => {
    const text = doctorText({ sandbox: { ...sandbox, setpriv: false }, software: [], ready: true });
    expect(text).toMatch(/MISSING {2}setpriv: a server killed just as a sandbox starts can leave it running.*util-linux 2\.33/);
    expect(doctorText({ sandbox, software: [], ready: true })).toMatch(/ok {7}setpriv: a sandbox dies with the server/);
  });

  it('says so when everything is there', () => {
    expect(doctorText({ sandbox, software: [], ready: true })).toMatch(/Ready: skills have everything they may count on\./);
  });
});
