/**
 * What depends on the version of the Node binary that runs a skill. That binary is this
 * server's own (the sandbox binds the real path of process.execPath), so its version is
 * process.versions.node; the rules take a version so each Node line can be checked.
 */
export interface SkillNode {
  /** Node 20 names the permission model experimental; 22.13, 23.5 and 24 accept the plain flag, and 24 refuses the old one. */
  permissionFlag: '--permission' | '--experimental-permission';
  /**
   * Room above the heap limit under RLIMIT_DATA for Node's own data (about 50 MiB at start).
   * From Node 24, V8 reserves its 512 MiB code range read-write-execute at start: reserved,
   * not used, but RLIMIT_DATA counts it, and without the room Node dies before running a line
   * ("Failed to reserve virtual memory for CodeRange"). The watchdog holds resident memory
   * to the limit either way.
   */
  dataHeadroomBytes: number;
}

const MIB = 1024 * 1024;
const NODE_DATA_BYTES = 128 * MIB;
const WRITABLE_CODE_RANGE_BYTES = 512 * MIB;

function versionParts(version: string): [number, number] {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return [major, minor];
}

export function skillNodeFor(version: string): SkillNode {
  const [major, minor] = versionParts(version);
  const plainFlag = major >= 24 || (major === 23 && minor >= 5) || (major === 22 && minor >= 13);
  return {
    permissionFlag: plainFlag ? '--permission' : '--experimental-permission',
    dataHeadroomBytes: NODE_DATA_BYTES + (major >= 24 ? WRITABLE_CODE_RANGE_BYTES : 0),
  };
}

/** The Node that runs skills on this server. */
export const SKILL_NODE = skillNodeFor(process.versions.node);
