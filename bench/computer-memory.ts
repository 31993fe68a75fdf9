/**
 * What the warm computers of a server hold while idle: every process of each sandbox (the
 * bubblewrap processes around it, the supervisor and its shell), read from /proc. PSS splits
 * pages shared with other processes (the image's libraries, Python) among them, so the sum
 * over computers is what they cost together; RSS counts each computer's shared pages in full.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The supervisor's script path inside every computer (computer-session.ts). */
const SUPERVISOR = '/opt/skillet/supervisor.py';

export interface IdleComputers {
  computers: number;
  /** Per computer, KiB. */
  pssKiB: number;
  rssKiB: number;
}

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

const pids = () => readdirSync('/proc').filter((name) => /^\d+$/.test(name));
const parentOf = (pid: string) => /^PPid:\s+(\d+)$/m.exec(read(`/proc/${pid}/status`))?.[1];
const commandOf = (pid: string) => read(`/proc/${pid}/comm`).trim();

function kib(pid: string, field: 'Pss' | 'Rss'): number {
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(read(`/proc/${pid}/smaps_rollup`))?.[1] ?? 0);
}

/** Every process of each computer under `serverPid`: the supervisors' bubblewrap parents, the supervisors and all below them. */
export function idleComputers(serverPid: number): IdleComputers {
  const all = pids();
  const children = new Map<string, string[]>();
  for (const pid of all) {
    const parent = parentOf(pid);
    if (parent) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const below = (pid: string): string[] => [pid, ...(children.get(pid) ?? []).flatMap(below)];
  const ofServer = new Set(below(String(serverPid)));
  // Python running the supervisor, not the bubblewrap whose arguments name it.
  const isSupervisor = (pid: string) => {
    const [program = '', ...args] = read(`/proc/${pid}/cmdline`).split('\0');
    return /python3?$/.test(program) && args.includes(SUPERVISOR);
  };
  const supervisors = all.filter((pid) => ofServer.has(pid) && isSupervisor(pid));
  const members = new Set<string>();
  for (const supervisor of supervisors) {
    for (const pid of below(supervisor)) members.add(pid);
    for (let up = parentOf(supervisor); up && commandOf(up) === 'bwrap'; up = parentOf(up)) members.add(up);
  }
  const total = (field: 'Pss' | 'Rss') => [...members].reduce((sum, pid) => sum + kib(pid, field), 0);
  const count = Math.max(1, supervisors.length);
  return { computers: supervisors.length, pssKiB: Math.round(total('Pss') / count), rssKiB: Math.round(total('Rss') / count) };
}
