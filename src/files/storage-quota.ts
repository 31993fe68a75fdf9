import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { lockRow } from '../db/locks.js';
import type { Tables } from '../db/tables.js';
import { Conflict, PayloadTooLarge } from '../errors.js';
import { installedSkillCount, type StoredUsage, storedUsage } from './storage-quota.store.js';

type Limits = Config['workspaceStorage'];

const DELETE_FILES =
  'Delete files you no longer need (skillet files rm ID, or DELETE /api/v1/files/ID; skillet files ls lists them), then try again.';

/** Bytes as people read them, with the exact number beside. */
function amount(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]} (${bytes} bytes)`;
}

function usedOf(usage: StoredUsage, limits: Limits): string {
  return `This workspace keeps ${usage.files} of the ${limits.files} files and ${amount(usage.bytes)} of the ${amount(limits.bytes)} it may keep in files and installed skill folders`;
}

function tooManyFiles(usage: StoredUsage, limits: Limits): Conflict {
  return new Conflict(`${usedOf(usage, limits)}, so this file was not stored. ${DELETE_FILES}`);
}

/** `incoming` undefined: the upload's size was not known, only that it passed what was left. */
function tooManyBytes(usage: StoredUsage, limits: Limits, what: string, incoming?: number): PayloadTooLarge {
  const size =
    incoming === undefined
      ? `is larger than the ${amount(Math.max(0, limits.bytes - usage.bytes))} left`
      : `takes ${amount(incoming)}`;
  return new PayloadTooLarge(`${usedOf(usage, limits)}; ${what} ${size}, so nothing was stored. ${DELETE_FILES}`);
}

/**
 * Refuses an upload the workspace has no room for: a file past the count, or bytes past
 * what is left. Without a transaction it is a first look (refusing before a byte is read);
 * inside one that holds the workspace (`holdWorkspace`) it is the check that counts.
 * Returns how many bytes are left.
 */
export async function checkFileRoom(db: Kysely<Tables>, limits: Limits, workspaceId: string, incoming = 0): Promise<number> {
  const usage = await storedUsage(db, workspaceId);
  if (usage.files >= limits.files) throw tooManyFiles(usage, limits);
  if (usage.bytes + incoming > limits.bytes) throw tooManyBytes(usage, limits, 'this file', incoming);
  return limits.bytes - usage.bytes;
}

/** The refusal of a streamed upload that passed `left` bytes, from a fresh look at the usage. */
export async function noRoomLeft(db: Kysely<Tables>, limits: Limits, workspaceId: string): Promise<PayloadTooLarge> {
  return tooManyBytes(await storedUsage(db, workspaceId), limits, 'this file');
}

/** Refuses an install past the workspace's skill count, or (a folder's files) past its bytes. */
export async function checkSkillRoom(db: Kysely<Tables>, limits: Limits, workspaceId: string, incoming = 0): Promise<void> {
  const skills = await installedSkillCount(db, workspaceId);
  if (skills >= limits.skills) {
    throw new Conflict(
      `This workspace has ${skills} installed skills, as many as this server allows (${limits.skills}), so nothing was installed. Ask the operator to raise WORKSPACE_SKILL_LIMIT.`,
    );
  }
  if (incoming === 0) return;
  const usage = await storedUsage(db, workspaceId);
  if (usage.bytes + incoming > limits.bytes) throw tooManyBytes(usage, limits, "this skill's folder", incoming);
}

/**
 * Holds the workspace until the transaction ends, so that of two uploads that fit only one
 * at a time, the second counts the first (PostgreSQL; SQLite runs one write transaction at
 * a time, and the check and the insert are in one).
 */
export function holdWorkspace(trx: Kysely<Tables>, workspaceId: string): Promise<void> {
  return lockRow(trx, 'workspaces', workspaceId);
}
