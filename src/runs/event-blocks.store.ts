import { type Kysely, sql } from 'kysely';
import { preparedRows } from '../db/prepared-lookup.js';
import { type Steps, statement } from '../db/statement-steps.js';
import type { Tables } from '../db/tables.js';

/**
 * Stored events are also kept joined in blocks: block k holds the frames of sequences
 * k*BLOCK_EVENTS+1 through (k+1)*BLOCK_EVENTS as one string, written in the transaction
 * that stores the block's last event. A replay then reads a few long strings instead of a
 * row per event. A block whose frames would exceed BLOCK_MAX_CHARS is not written, and
 * its events are read one by one; so is the unfinished tail.
 */
const BLOCK_EVENTS = 256;
const BLOCK_MAX_CHARS = 512 * 1024;
/** Blocks per read: bounds the memory one replay holds at a time. */
const BLOCKS_PER_READ = 16;

/** Writes the blocks completed by events `first` through `last`. */
export function* sealCompletedBlocks(db: Kysely<Tables>, executionId: string, first: number, last: number): Steps<void> {
  for (let end = Math.ceil(first / BLOCK_EVENTS) * BLOCK_EVENTS; end <= last; end += BLOCK_EVENTS) {
    const block = end / BLOCK_EVENTS - 1;
    const seal = db
      .insertInto('execution_event_blocks')
      .columns(['execution_id', 'block', 'frames'])
      .expression((eb) =>
        eb
          .selectFrom('execution_events')
          .select([
            sql<string>`cast(${executionId} as text)`.as('execution_id'),
            sql<number>`cast(${block} as integer)`.as('block'),
            sql<string>`string_agg(frame, '' order by sequence)`.as('frames'),
          ])
          .where('execution_id', '=', executionId)
          .where('sequence', '>', end - BLOCK_EVENTS)
          .where('sequence', '<=', end)
          .having(sql`sum(length(frame))`, '<=', BLOCK_MAX_CHARS),
      )
      .compile();
    yield* statement(seal);
  }
}

const blocksFrom = preparedRows((db, executionId: string, firstBlock: number, count: number) =>
  db
    .selectFrom('execution_event_blocks')
    .select(['block', 'frames'])
    .where('execution_id', '=', executionId)
    .where('block', '>=', firstBlock)
    .orderBy('block')
    .limit(count),
);

const framesAfter = preparedRows((db, executionId: string, afterSequence: number, limit: number) =>
  db
    .selectFrom('execution_events')
    .select('frame')
    .where('execution_id', '=', executionId)
    .where('sequence', '>', afterSequence)
    .orderBy('sequence')
    .limit(limit),
);

export interface FrameChunk {
  /** Consecutive frames, joined. */
  text: string;
  /** The sequence of the last of them. */
  lastSequence: number;
}

/**
 * The stored frames after `afterSequence` (up to `through`, or all), in order, a chunk
 * at a time: whole blocks where they exist, single events elsewhere. Sequences have no
 * gaps, so the i-th frame read after sequence s is event s+1+i.
 */
export async function* frameChunksAfter(
  db: Kysely<Tables>,
  executionId: string,
  afterSequence: number,
  through = Number.POSITIVE_INFINITY,
): AsyncGenerator<FrameChunk> {
  let position = afterSequence;
  while (position < through) {
    if (position % BLOCK_EVENTS === 0 && through - position >= BLOCK_EVENTS) {
      const wanted = Math.min(BLOCKS_PER_READ, Math.floor((through - position) / BLOCK_EVENTS));
      const blocks = await blocksFrom(db, executionId, position / BLOCK_EVENTS, wanted);
      // Only the blocks that follow on without a hole can be sent as they are.
      const firstBlock = position / BLOCK_EVENTS;
      const run = blocks.filter((row, i) => row.block === firstBlock + i);
      if (run.length > 0) {
        position += run.length * BLOCK_EVENTS;
        yield { text: run.map((row) => row.frames).join(''), lastSequence: position };
        continue;
      }
    }
    const wanted = Math.min(BLOCK_EVENTS - (position % BLOCK_EVENTS), through - position);
    const rows = await framesAfter(db, executionId, position, wanted);
    if (rows.length === 0) return;
    position += rows.length;
    yield { text: rows.map((row) => row.frame).join(''), lastSequence: position };
    if (rows.length < wanted) return;
  }
}
