/**
 * The soak's mix of what users do, played against Skillet and against the bare baseline by
 * the same code: the baseline answers the same paths (soak-baseline.ts), so that both sides
 * see the very same requests in the same order at the same moments.
 */

/** One workspace with its own API key (Skillet binds a key to one workspace). */
export interface Lane {
  apiKey: string;
  /** Client-side guard for the one-working-execution-per-workspace rule. */
  busy: boolean;
  lastRun: string;
  lastArtifact: string;
  /** Runs started here: the skill alternates on it, text-stats on odd counts. */
  runs: number;
}

/** What one side did since it was last taken: the request latencies, failures and runs. */
export class Tally {
  latencies: number[] = [];
  errors = 0;
  runs = 0;
  /** Runs the schedule asked for while every workspace was still busy with the last one. */
  skipped = 0;
  firstErrors: string[] = [];

  fail(error: unknown): void {
    this.errors++;
    // A few messages are enough to say what went wrong; a broken server would fill memory.
    if (this.firstErrors.length < 5) this.firstErrors.push((error as Error).message);
  }

  take(): Pick<Tally, 'latencies' | 'errors' | 'runs' | 'skipped'> {
    const taken = { latencies: this.latencies, errors: this.errors, runs: this.runs, skipped: this.skipped };
    this.latencies = [];
    this.errors = 0;
    this.runs = 0;
    this.skipped = 0;
    return taken;
  }
}

export interface Side {
  url: string;
  lanes: Lane[];
  tally: Tally;
}

export type Operation = 'marketplace' | 'balance' | 'history' | 'status' | 'me' | 'artifacts' | 'download' | 'run';

/** Operations out of every 20: mostly reads, as the app and SDK users make them, and a run in seven. */
export const MIX: Record<Operation, number> = {
  marketplace: 3,
  balance: 3,
  history: 3,
  status: 3,
  me: 2,
  artifacts: 2,
  download: 1,
  run: 3,
};

export const MIX_DESCRIPTION =
  'per 20 operations: 3 marketplace list, 3 balance, 3 history (limit 10), 3 execution status, 2 /me, ' +
  '2 artifact list (limit 10), 1 artifact download, 3 runs (create, stream token, SSE stream read to ' +
  'session.status_idle, start; ticker "3 50" and text-stats in turns)';

/** The mix in a fixed interleaved order, so that runs are spread out rather than bunched. */
export const SEQUENCE: Operation[] = (() => {
  const slots: { operation: Operation; at: number }[] = [];
  for (const [operation, weight] of Object.entries(MIX) as [Operation, number][])
    for (let i = 0; i < weight; i++) slots.push({ operation, at: (i + 0.5) / weight });
  return slots.sort((a, b) => a.at - b.at).map((slot) => slot.operation);
})();

const REQUEST_TIMEOUT_MS = 30_000;
/** A run's stream, from opening to its end: far beyond a few ticks, even on a loaded machine. */
const RUN_TIMEOUT_MS = 60_000;
const TICKER_INPUT = '3 50';
const TEXT =
  'Skillet runs skills for people and their agents. A run streams live, the files it writes become ' +
  'artifacts, and every run is paid for with credits. This paragraph is only a soak test input.';

/** One request; its latency counts once its whole body has arrived. */
async function call(side: Side, lane: Lane, path: string, body?: unknown): Promise<string> {
  const started = performance.now();
  const response = await fetch(`${side.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-api-key': lane.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${body === undefined ? 'GET' : 'POST'} ${path}: ${response.status} ${text.slice(0, 200)}`);
  side.tally.latencies.push(performance.now() - started);
  return text;
}

/**
 * A whole run as a client makes it: create, take a stream URL, open the stream, start,
 * and read the stream to its end. The stream's latency is the wait for its headers.
 */
async function run(side: Side, lane: Lane): Promise<void> {
  const [skill, input] = lane.runs++ % 2 === 0 ? ['ticker', TICKER_INPUT] : ['text-stats', TEXT];
  const { id } = JSON.parse(await call(side, lane, '/api/v1/executions', { skill_slug: skill, input })) as { id: string };
  const { sseUrl } = JSON.parse(await call(side, lane, `/api/v1/executions/${id}/stream-token`)) as { sseUrl: string };
  const closing = new AbortController();
  try {
    const opened = performance.now();
    const stream = await fetch(sseUrl, { signal: AbortSignal.any([closing.signal, AbortSignal.timeout(RUN_TIMEOUT_MS)]) });
    if (!stream.ok) throw new Error(`GET stream of ${id}: ${stream.status}`);
    side.tally.latencies.push(performance.now() - opened);
    const [frames] = await Promise.all([
      stream.text(),
      call(side, lane, `/api/v1/executions/${id}/events`, {
        events: [{ type: 'user.message', content: [{ type: 'text', text: input }] }],
      }),
    ]);
    if (!frames.includes('"type":"session.status_idle"')) throw new Error(`run ${id}: stream ended without session.status_idle`);
    lane.lastRun = id;
    lane.lastArtifact = /"artifactId":"([^"]+)"/.exec(frames)?.[1] ?? lane.lastArtifact;
    side.tally.runs++;
  } finally {
    // A failed start leaves the stream open: close it rather than wait for its timeout.
    closing.abort();
  }
}

/** Takes the first idle workspace from `from` on, or none if all are running something. */
function idleLane(lanes: Lane[], from: number): Lane | undefined {
  for (let i = 0; i < lanes.length; i++) {
    const lane = lanes[(from + i) % lanes.length] as Lane;
    if (!lane.busy) return lane;
  }
  return undefined;
}

/** Operation number `index` of the mix on one side; never throws, failures are tallied. */
export async function perform(side: Side, index: number): Promise<void> {
  const operation = SEQUENCE[index % SEQUENCE.length] as Operation;
  const lane = side.lanes[index % side.lanes.length] as Lane;
  try {
    if (operation === 'run') {
      const idle = idleLane(side.lanes, index);
      if (!idle) {
        side.tally.skipped++;
        return;
      }
      idle.busy = true;
      try {
        await run(side, idle);
      } finally {
        idle.busy = false;
      }
      return;
    }
    const paths: Record<Exclude<Operation, 'run'>, string> = {
      marketplace: '/api/v1/marketplace/skills',
      balance: '/api/v1/billing/balance',
      history: '/api/v1/executions?limit=10',
      status: `/api/v1/executions/${lane.lastRun}/status`,
      me: '/api/v1/me',
      artifacts: '/api/v1/artifacts?limit=10',
      download: `/api/v1/artifacts/${lane.lastArtifact}/download`,
    };
    await call(side, lane, paths[operation]);
  } catch (error) {
    side.tally.fail(error);
  }
}

/**
 * Gives every workspace one finished text-stats run (lanes start at an odd count), so that
 * status and download have something to read from the first operation on.
 */
export async function primeLanes(side: Side): Promise<void> {
  for (const lane of side.lanes) await run(side, lane);
  side.tally.take();
}
