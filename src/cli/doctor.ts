import type { SandboxSetting } from '../config.js';
import { inspectSoftware, readSoftwareList, type SoftwareStatus } from '../skills/computer-software.js';
import { GRANT_CGROUPS_HINT } from '../skills/run-cgroup.js';
import { detectSandbox, ENABLE_SANDBOX_HINT } from '../skills/sandbox.js';

/** What `skillet doctor` found on this host. */
export interface DoctorReport {
  sandbox: {
    kind: 'bwrap' | 'permissions';
    runsUntrusted: boolean;
    kernelLimits: boolean;
    /** Whether a run's writable space is a bounded tmpfs of its own (the server may mount). */
    boundedSpace: boolean;
    prlimit: boolean;
    /** Whether a sandbox is tied to the server from its start (setpriv's parent-death signal). */
    setpriv: boolean;
  };
  software: SoftwareStatus[];
  /** Whether the host gives skills everything they may count on. */
  ready: boolean;
}

export async function doctorReport(setting: SandboxSetting): Promise<DoctorReport> {
  const sandbox = await detectSandbox(setting);
  const software = await inspectSoftware(readSoftwareList());
  const missing = software.some((item) => !item.present && !item.optional);
  return {
    sandbox: {
      kind: sandbox.kind,
      runsUntrusted: sandbox.runsUntrusted,
      kernelLimits: sandbox.cgroups !== undefined,
      boundedSpace: sandbox.boundedSpace !== undefined,
      prlimit: sandbox.prlimit !== undefined,
      setpriv: sandbox.setpriv !== undefined,
    },
    software,
    ready: sandbox.kind === 'bwrap' && sandbox.cgroups !== undefined && !missing,
  };
}

const mark = (ok: boolean) => (ok ? '  ok       ' : '  MISSING  ');

/** The report for a person: what is there, what is not, and what to run about it. */
export function doctorText(report: DoctorReport): string {
  const { sandbox } = report;
  const lines = ['What skills get on this host', '', 'Sandbox'];
  lines.push(
    `${mark(sandbox.kind === 'bwrap')}bubblewrap: ${
      sandbox.kind === 'bwrap'
        ? 'every skill runs in namespaces of its own'
        : `only built-in skills run; to fix, ${ENABLE_SANDBOX_HINT}`
    }`,
  );
  lines.push(
    `${mark(sandbox.kernelLimits)}cgroup control: ${
      sandbox.kernelLimits
        ? 'the kernel holds each run to its memory, processes and CPU'
        : `a watchdog stands in for the kernel; to fix, ${GRANT_CGROUPS_HINT}`
    }`,
  );
  lines.push(
    `${mark(sandbox.boundedSpace)}bounded space: ${
      sandbox.boundedSpace
        ? "each run's writable folders are a tmpfs of their own size, files deleted while open included"
        : 'the output folder is watched instead, and files deleted while open are missed; to fix, run the server as root or give it CAP_SYS_ADMIN'
    }`,
  );
  lines.push(`${mark(sandbox.prlimit)}prlimit: ${sandbox.prlimit ? 'hard limits per process' : 'install util-linux'}`);
  lines.push(
    `${mark(sandbox.setpriv)}setpriv: ${
      sandbox.setpriv
        ? 'a sandbox dies with the server even when the server is killed as the sandbox starts'
        : 'a server killed just as a sandbox starts can leave it running until the next start; to fix, install util-linux 2.33 or later'
    }`,
  );
  lines.push('', 'Software (the list is computer/software.json)');
  for (const item of report.software) {
    const fix = item.present ? '' : ` (install with: apt-get install ${item.package})`;
    const optional = item.optional && !item.present ? '  optional ' : mark(item.present);
    lines.push(`${optional}${item.provides}${fix}`);
  }
  const missing = report.software.filter((item) => !item.present && !item.optional).map((item) => item.package);
  lines.push('');
  if (report.ready) lines.push('Ready: skills have everything they may count on.');
  else if (missing.length > 0) lines.push(`Not ready. To install what is missing: apt-get install ${missing.join(' ')}`);
  else lines.push('Not ready: see the sandbox lines above.');
  return `${lines.join('\n')}\n`;
}
