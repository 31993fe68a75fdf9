import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { doctorText } from '../../src/cli/doctor.js';
import { assistantComputerPrompt, computerPrompt } from '../../src/runtime/computer/computer-prompt.js';
import {
  inspectSoftware,
  readSoftwareList,
  SANDBOX_PYTHON,
  type SoftwareItem,
} from '../../src/sandbox/computer/computer-software.js';

const item = (provides: string, check: SoftwareItem['check'], optional = false): SoftwareItem => ({
  provides,
  package: `pkg-${provides}`,
  check,
  ...(optional ? { optional } : {}),
});

describe('the computer software list', () => {
  it('is one readable list, every entry naming Debian or npm packages and a way to check it', () => {
    const list = readSoftwareList();
    expect(list.length).toBeGreaterThan(10);
    for (const entry of list) {
      expect(entry.package ?? entry.npm).toMatch(/^[@a-z0-9][@a-z0-9+./-]+( [@a-z0-9][@a-z0-9+./-]+)*$/);
      expect('command' in entry.check || 'python' in entry.check || 'node' in entry.check).toBe(true);
      // A Node package is only in the image, and no host without one is asked for it.
      if (entry.npm) expect(entry.optional).toBe(true);
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
    const nowhere = { root: '/', python: ['/nowhere/python3'], nodeModules: false };
    expect(await inspectSoftware([item('json', { python: 'json' })], nowhere)).toMatchObject([{ present: false }]);
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
  const image = { inUse: false as const, reason: 'no computer image is built in /data/computer-image' };

  it('says what is missing and the one command that installs it', () => {
    const text = doctorText({
      sandbox,
      image,
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
    const text = doctorText({ sandbox: { ...sandbox, kernelLimits: false }, image, software: [], ready: false });
    expect(text).toMatch(/MISSING {2}cgroup control: a watchdog stands in.*Delegate=yes/);
    expect(text).toMatch(/Not ready: see the sandbox lines above\./);
  });

  it('says what a missing setpriv risks and how to get it', () => {
    const text = doctorText({ sandbox: { ...sandbox, setpriv: false }, image, software: [], ready: true });
    expect(text).toMatch(/MISSING {2}setpriv: a server killed just as a sandbox starts can leave it running.*util-linux 2\.33/);
    expect(doctorText({ sandbox, image, software: [], ready: true })).toMatch(/ok {7}setpriv: a sandbox dies with the server/);
  });

  it('says so when everything is there', () => {
    expect(doctorText({ sandbox, image, software: [], ready: true })).toMatch(
      /Ready: skills have everything they may count on\./,
    );
  });

  it("says which system agent skills get: the host's folders without an image, and how to build one", () => {
    const text = doctorText({ sandbox, image, software: [], ready: true });
    expect(text).toMatch(/none {5}no computer image is built in \/data\/computer-image: agent skills get this host's own/);
    expect(text).toMatch(/skillet computer build/);
    expect(text).toMatch(/Software on this host/);
  });

  it('names the image in use, and one built from another recipe as stale', () => {
    const inUse = {
      inUse: true as const,
      version: 'trixie-r1-a',
      builtAt: '2026-12-01',
      folder: '/img/rootfs',
      recipeVersion: 'trixie-r1-a',
    };
    const text = doctorText({ sandbox, image: inUse, software: [], ready: true });
    expect(text).toMatch(/ok {7}trixie-r1-a, built 2026-12-01, at \/img\/rootfs: agent skills run on it/);
    expect(text).toMatch(/Software in the image/);
    expect(text).not.toMatch(/STALE/);
    const stale = doctorText({ sandbox, image: { ...inUse, recipeVersion: 'trixie-r2-b' }, software: [], ready: true });
    expect(stale).toMatch(/STALE {4}this version's recipe is trixie-r2-b: rebuild with skillet computer build/);
  });

  it('counts a package too old for the skills as missing, with its version and the way to a newer one', () => {
    const pypdf = item('pypdf', { python: 'pypdf', distribution: 'pypdf', min: '5.0' });
    const text = doctorText({
      sandbox,
      image,
      software: [{ ...pypdf, present: false, version: '3.4.1', tooOld: true }],
      ready: false,
    });
    expect(text).toMatch(
      /TOO OLD {2}pypdf 3\.4\.1 \(skills need 5\.0 or later; the computer image has it: skillet computer build/,
    );
    expect(text).toMatch(/Not ready: some software is missing or too old\. To give skills all of it: skillet computer build/);
  });
});
