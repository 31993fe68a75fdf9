import { describe, it, vi } from 'vitest';
import { killableServerForFile, killDuringEveryWrite } from './kill-during-writes.js';
import { KILL_DELAYS_MS } from './kill-rounds.js';

/**
 * The same SIGKILL rounds on SQLite, the embedded default: one process, its database a WAL
 * file in the data folder, where a kill can land inside a write that PostgreSQL would have
 * held on the other side of a socket.
 */
vi.stubEnv('TEST_DB', 'sqlite');
const server = killableServerForFile('faultkilllite');

describe('SIGKILL during every kind of write at once on SQLite: ledger, events, artifacts', () => {
  it.each(KILL_DELAYS_MS.map((delay, round) => ({ round, delay })))(
    'round $round: killed $delay ms after the bundle began staging',
    ({ delay }) => killDuringEveryWrite(server(), delay),
  );
});
