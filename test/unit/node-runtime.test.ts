import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SKILL_NODE, skillNodeFor } from '../../src/sandbox/node-runtime.js';

const MIB = 1024 * 1024;

describe('the Node flags a skill runs with, by the version of the Node that runs it', () => {
  it.each([
    ['20.19.0', '--experimental-permission'],
    ['v20.20.2', '--experimental-permission'],
    ['22.12.0', '--experimental-permission'],
    ['22.13.0', '--permission'],
    ['22.23.3', '--permission'],
    ['23.4.0', '--experimental-permission'],
    ['23.5.0', '--permission'],
    ['24.0.0', '--permission'],
    ['v24.21.0', '--permission'],
    ['26.1.0', '--permission'],
  ])('Node %s gets %s', (version, flag) => {
    expect(skillNodeFor(version).permissionFlag).toBe(flag);
  });

  it("leaves room under the data limit for Node 24's 512 MiB code range, and only there", () => {
    expect(skillNodeFor('20.19.0').dataHeadroomBytes).toBe(128 * MIB);
    expect(skillNodeFor('22.23.3').dataHeadroomBytes).toBe(128 * MIB);
    expect(skillNodeFor('24.21.0').dataHeadroomBytes).toBe(640 * MIB);
  });

  it('the running Node accepts the flag chosen for it, and starts within the data room', () => {
    const prlimit = ['/usr/bin/prlimit', '/bin/prlimit'].find((file) => spawnSync(file, ['--version']).status === 0);
    const node = [SKILL_NODE.permissionFlag, '--max-old-space-size=64', '-e', 'console.log("started")'];
    const command = prlimit
      ? [prlimit, `--data=${64 * MIB + SKILL_NODE.dataHeadroomBytes}`, '--', process.execPath, ...node]
      : [process.execPath, ...node];
    const result = spawnSync(command[0] as string, command.slice(1), { encoding: 'utf8' });
    expect(result.stderr).not.toMatch(/bad option|Failed to reserve/);
    expect(result.stdout.trim(), result.stderr).toBe('started');
  });
});
