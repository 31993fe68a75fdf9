import { describe, it } from 'vitest';
import { killableServerForFile, killDuringEveryWrite } from './kill-during-writes.js';
import { KILL_DELAYS_MS } from './kill-rounds.js';

/** SIGKILL of the built server on PostgreSQL (the faults project's engine), in rounds at spread moments. */
const server = killableServerForFile('faultkill');

describe('SIGKILL during every kind of write at once on PostgreSQL: ledger, events, artifacts', () => {
  it.each(KILL_DELAYS_MS.map((delay, round) => ({ round, delay })))(
    'round $round: killed $delay ms after the bundle began staging',
    ({ delay }) => killDuringEveryWrite(server(), delay),
  );
});
