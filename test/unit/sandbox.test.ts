import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { detectSandbox, type SandboxProbe } from '../../src/sandbox/sandbox.js';

const machine = (found: Partial<SandboxProbe>) => async (): Promise<SandboxProbe> => ({
  bwrap: '/usr/bin/bwrap',
  failure: undefined,
  runtimeFiles: ['/usr/bin/node'],
  prlimit: '/usr/bin/prlimit',
  setpriv: '/usr/bin/setpriv',
  cgroups: {
    version: 1,
    create: () => Promise.reject(new Error('not made in these tests')),
    clearLeftovers: async () => ({ removed: 0, stopped: 0 }),
  },
  noCgroups: undefined,
  boundedSpace: { mount: '/usr/bin/mount', umount: '/usr/bin/umount' },
  noBoundedSpace: undefined,
  seccomp: { file: '/tmp/skillet-seccomp-test.bpf' },
  ...found,
});
const noNamespaces = machine({ failure: 'setting up uid map: Permission denied' });

describe('choosing the sandbox', () => {
  it('uses bubblewrap where it works, for every skill, without a warning', async () => {
    expect(await detectSandbox('auto', machine({}))).toMatchObject({
      kind: 'bwrap',
      runsUntrusted: true,
      warning: undefined,
      seccompFile: '/tmp/skillet-seccomp-test.bpf',
    });
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

  it('says when the kernel cannot hold runs to their limits, and how to grant cgroup control', async () => {
    const sandbox = await detectSandbox('auto', machine({ cgroups: undefined, noCgroups: 'mkdir: permission denied' }));
    expect(sandbox).toMatchObject({ kind: 'bwrap', cgroups: undefined });
    expect(sandbox.warning).toMatch(/Without cgroup control \(mkdir: permission denied\).*Delegate=yes/);
  });

  it('says when run folders cannot be bounded, and how to allow it', async () => {
    const sandbox = await detectSandbox('auto', machine({ boundedSpace: undefined, noBoundedSpace: 'mount: permission denied' }));
    expect(sandbox).toMatchObject({ kind: 'bwrap', boundedSpace: undefined });
    expect(sandbox.warning).toMatch(/Without the right to mount \(mount: permission denied\).*deleted files.*CAP_SYS_ADMIN/);
  });

  it('says when prlimit is missing too', async () => {
    expect((await detectSandbox('auto', machine({ prlimit: undefined }))).warning).toMatch(/prlimit/);
  });

  it('runs sandboxes without the seccomp filter where bubblewrap refuses it, and says so', async () => {
    const sandbox = await detectSandbox('auto', machine({ seccomp: { refused: 'bwrap: --seccomp: invalid argument' } }));
    expect(sandbox).toMatchObject({ kind: 'bwrap', seccompFile: undefined });
    expect(sandbox.warning).toMatch(/bubblewrap refused the seccomp filter \(bwrap: --seccomp: invalid argument\)/);
  });
});
