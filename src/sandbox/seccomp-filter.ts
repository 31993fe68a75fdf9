import { createHash } from 'node:crypto';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * System calls no skill has a use for, refused with EPERM inside every sandbox (defence in
 * depth under the namespaces): tracing other processes, the kernel's keyrings, eBPF,
 * userfaultfd (a staple of kernel exploits), mounting and namespaces, kernel modules and
 * kexec, the clock, swap, reboot, accounting and quotas, file handles, perf, the kernel log.
 * Most are refused in a user namespace anyway; the filter holds should one of those checks fail.
 * Numbers per architecture: Linux's x86_64 table and the generic one arm64 uses.
 */
const DENIED: Record<string, { x64: number; arm64: number }> = {
  ptrace: { x64: 101, arm64: 117 },
  process_vm_readv: { x64: 310, arm64: 270 },
  process_vm_writev: { x64: 311, arm64: 271 },
  keyctl: { x64: 250, arm64: 219 },
  add_key: { x64: 248, arm64: 217 },
  request_key: { x64: 249, arm64: 218 },
  bpf: { x64: 321, arm64: 280 },
  userfaultfd: { x64: 323, arm64: 282 },
  perf_event_open: { x64: 298, arm64: 241 },
  mount: { x64: 165, arm64: 40 },
  umount2: { x64: 166, arm64: 39 },
  pivot_root: { x64: 155, arm64: 41 },
  open_tree: { x64: 428, arm64: 428 },
  move_mount: { x64: 429, arm64: 429 },
  fsopen: { x64: 430, arm64: 430 },
  fsconfig: { x64: 431, arm64: 431 },
  fsmount: { x64: 432, arm64: 432 },
  fspick: { x64: 433, arm64: 433 },
  mount_setattr: { x64: 442, arm64: 442 },
  unshare: { x64: 272, arm64: 97 },
  setns: { x64: 308, arm64: 268 },
  init_module: { x64: 175, arm64: 105 },
  finit_module: { x64: 313, arm64: 273 },
  delete_module: { x64: 176, arm64: 106 },
  kexec_load: { x64: 246, arm64: 104 },
  kexec_file_load: { x64: 320, arm64: 294 },
  clock_settime: { x64: 227, arm64: 112 },
  clock_adjtime: { x64: 305, arm64: 266 },
  settimeofday: { x64: 164, arm64: 170 },
  adjtimex: { x64: 159, arm64: 171 },
  swapon: { x64: 167, arm64: 224 },
  swapoff: { x64: 168, arm64: 225 },
  reboot: { x64: 169, arm64: 142 },
  acct: { x64: 163, arm64: 89 },
  quotactl: { x64: 179, arm64: 60 },
  open_by_handle_at: { x64: 304, arm64: 265 },
  lookup_dcookie: { x64: 212, arm64: 18 },
  syslog: { x64: 103, arm64: 116 },
  vhangup: { x64: 153, arm64: 58 },
};

/** The names of the refused calls, for documentation and tests. */
export const DENIED_SYSCALLS = Object.keys(DENIED);

type Arch = 'x64' | 'arm64';
/** AUDIT_ARCH_* of each architecture, as seccomp_data.arch reports it. */
const AUDIT_ARCH: Record<Arch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 };
/** x86_64's x32 calls carry this bit and would reach the same kernel code under other numbers. */
const X32_SYSCALL_BIT = 0x40000000;

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_EPERM = 0x00050000 | 1;
/** Offsets in struct seccomp_data. */
const NR_OFFSET = 0;
const ARCH_OFFSET = 4;

function instruction(code: number, jt: number, jf: number, k: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeUInt16LE(code, 0);
  bytes.writeUInt8(jt, 2);
  bytes.writeUInt8(jf, 3);
  bytes.writeUInt32LE(k >>> 0, 4);
  return bytes;
}

/**
 * The classic BPF program bubblewrap installs with --seccomp: a call of another architecture
 * (32-bit code on a 64-bit kernel) or of x32 is refused, a listed call is refused, anything
 * else is allowed. Undefined on an architecture the list does not cover.
 */
export function seccompProgram(arch: string = process.arch): Buffer | undefined {
  if (arch !== 'x64' && arch !== 'arm64') return undefined;
  const numbers = Object.values(DENIED).map((entry) => entry[arch]);
  // Instructions after the checks: one per listed call, then allow, then refuse.
  const checks: Buffer[] = [];
  if (arch === 'x64') checks.push(instruction(BPF_JGE_K, numbers.length + 1, 0, X32_SYSCALL_BIT));
  numbers.forEach((nr, at) => {
    checks.push(instruction(BPF_JEQ_K, numbers.length - at, 0, nr));
  });
  return Buffer.concat([
    instruction(BPF_LD_W_ABS, 0, 0, ARCH_OFFSET),
    instruction(BPF_JEQ_K, 1, 0, AUDIT_ARCH[arch]),
    instruction(BPF_RET_K, 0, 0, RET_EPERM),
    instruction(BPF_LD_W_ABS, 0, 0, NR_OFFSET),
    ...checks,
    instruction(BPF_RET_K, 0, 0, RET_ALLOW),
    instruction(BPF_RET_K, 0, 0, RET_EPERM),
  ]);
}

/**
 * The program in a file that sandboxes' launch shells open for bubblewrap (launch-command.ts),
 * named by its content, in the system's temporary folder; written again should something have
 * removed it. Undefined on an architecture the list does not cover.
 */
export function seccompFile(dir = tmpdir()): string | undefined {
  const program = seccompProgram();
  if (!program) return undefined;
  const file = path.join(dir, `skillet-seccomp-${createHash('sha256').update(program).digest('hex').slice(0, 16)}.bpf`);
  if (!existsSync(file)) {
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, program, { mode: 0o644 });
    renameSync(partial, file);
  }
  return file;
}

/** The descriptor a sandbox's launch shell opens the program on, for bubblewrap's --seccomp. */
export const SECCOMP_FD = 9;

/** bubblewrap's arguments that install the filter, when the sandbox has one. */
export function seccompArgs(file: string | undefined): string[] {
  return file ? ['--seccomp', String(SECCOMP_FD)] : [];
}
