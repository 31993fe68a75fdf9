/**
 * In a cluster, an unreferenced blob younger than this may be one another node has just
 * committed and is about to record; only older ones are collected.
 */
export const ORPHAN_MIN_AGE_MS = 60 * 60_000;

/**
 * A commit of bytes already stored writes them again when the stored copy is older than
 * this, so every blob is young for at least ORPHAN_MIN_AGE_MS - REFRESH_AFTER_MS (45 min)
 * after a commit: far longer than the moment between a commit and its reference.
 */
export const REFRESH_AFTER_MS = ORPHAN_MIN_AGE_MS / 4;
