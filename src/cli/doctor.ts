import type { SandboxSetting } from '../config.js';
import { GRANT_CGROUPS_HINT } from '../sandbox/cgroup-detection.js';
import { findComputerImage, softwareHostOf } from '../sandbox/computer/computer-image.js';
import { readImageRecipe } from '../sandbox/computer/computer-image-recipe.js';
import { inspectSoftware, readSoftwareList, type SoftwareStatus } from '../sandbox/computer/computer-software.js';
import { detectSandbox, ENABLE_SANDBOX_HINT } from '../sandbox/sandbox.js';

/** The computer image this host's servers would run agent skills on, or why there is none. */
export type ImageReport =
  | { inUse: true; version: string; builtAt: string; folder: string; recipeVersion: string }
  | { inUse: false; reason: string };

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
  image: ImageReport;
  /** What the computer has: the image's software where there is one, else this host's. */
  software: SoftwareStatus[];
  /** Whether the host gives skills everything they may count on. */
  ready: boolean;
}

export async function doctorReport(settings: { sandbox: SandboxSetting; computerImage: { dir: string } }): Promise<DoctorReport> {
  const sandbox = await detectSandbox(settings.sandbox);
  const found = findComputerImage(settings.computerImage.dir);
  const image: ImageReport =
    'image' in found
      ? {
          inUse: true,
          version: found.image.version,
          builtAt: found.image.builtAt,
          folder: found.image.root,
          recipeVersion: readImageRecipe().version,
        }
      : { inUse: false, reason: found.missing };
  const withImage = 'image' in found ? { ...sandbox, computerImage: found.image } : sandbox;
  const software = await inspectSoftware(readSoftwareList(), softwareHostOf(withImage));
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
    image,
    software,
    ready: sandbox.kind === 'bwrap' && sandbox.cgroups !== undefined && !missing,
  };
}

const mark = (ok: boolean) => (ok ? '  ok       ' : '  MISSING  ');
const BUILD_HINT = 'skillet computer build (as root, with mmdebstrap installed)';

function imageLines(image: ImageReport): string[] {
  if (!image.inUse) {
    return [
      `  none     ${image.reason}: agent skills get this host's own system folders, with whatever versions its distribution has.`,
      `           To give them the image's software instead: ${BUILD_HINT}`,
    ];
  }
  const lines = [`  ok       ${image.version}, built ${image.builtAt}, at ${image.folder}: agent skills run on it`];
  if (image.version !== image.recipeVersion) {
    lines.push(`  STALE    this version's recipe is ${image.recipeVersion}: rebuild with ${BUILD_HINT}`);
  }
  return lines;
}

function softwareLine(item: SoftwareStatus, image: ImageReport): string {
  const found = item.version ? ` ${item.version}` : '';
  if (item.tooOld) {
    const min = 'min' in item.check ? item.check.min : '';
    return `  TOO OLD  ${item.provides}${found} (skills need ${min} or later; the computer image has it: ${BUILD_HINT})`;
  }
  if (item.present) return `${mark(true)}${item.provides}${found}`;
  const fix = image.inUse
    ? ` (rebuild the image: ${BUILD_HINT})`
    : item.package
      ? ` (install with: apt-get install ${item.package})`
      : ' (comes with the computer image)';
  return `${item.optional ? '  optional ' : mark(false)}${item.provides}${fix}`;
}

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
  lines.push('', 'Computer image', ...imageLines(report.image));
  const where = report.image.inUse ? 'in the image' : 'on this host';
  lines.push('', `Software ${where} (the list is computer/software.json)`);
  for (const item of report.software) lines.push(softwareLine(item, report.image));
  const needed = report.software.filter((item) => !item.present && !item.optional);
  const installable = needed.filter((item) => !item.tooOld && item.package).map((item) => item.package);
  lines.push('');
  if (report.ready) lines.push('Ready: skills have everything they may count on.');
  else if (needed.length > 0 && !report.image.inUse && installable.length === needed.length) {
    lines.push(`Not ready. To install what is missing: apt-get install ${installable.join(' ')}`);
  } else if (needed.length > 0)
    lines.push(`Not ready: some software is missing or too old. To give skills all of it: ${BUILD_HINT}`);
  else lines.push('Not ready: see the sandbox lines above.');
  return `${lines.join('\n')}\n`;
}
