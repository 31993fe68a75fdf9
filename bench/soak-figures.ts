/**
 * The soak's figures from its samples: resident-memory slope and p99 drift per side, and
 * Skillet's against the baseline's.
 */
import { type MemoryReading, percentile } from './processes.js';

export interface Pair<T> {
  ours: T;
  base: T;
}

/** One side over one sampling window. */
export interface Sample {
  /** Seconds from the start of the soak to the end of the window. */
  at: number;
  residentMb: number;
  requests: number;
  p50: number;
  p99: number;
  errors: number;
  runs: number;
  skipped: number;
}

/** A sample and the latencies it was computed from, kept for the pooled p99 of a span. */
export interface Window {
  sample: Sample;
  latencies: number[];
}

/** Least-squares slope of y over x. */
function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const meanX = points.reduce((sum, point) => sum + point.x, 0) / n;
  const meanY = points.reduce((sum, point) => sum + point.y, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const { x, y } of points) {
    covariance += (x - meanX) * (y - meanY);
    variance += (x - meanX) ** 2;
  }
  return covariance / variance;
}

export interface Spans {
  /** Seconds at the start left out of every figure but the totals: caches fill, code gets compiled. */
  warmup: number;
  /** Seconds compared at each end of what follows the warm-up. */
  compared: number;
}

/** Warm-up: a sixth of the soak, at most 5 minutes; compared spans: a third of the rest, at most 5 minutes. */
export function spansFor(soakSeconds: number): Spans {
  const warmup = Math.min(300, soakSeconds / 6);
  return { warmup, compared: Math.min(300, (soakSeconds - warmup) / 3) };
}

export interface Figures {
  residentAfterWarmupMb: number;
  residentEndMb: number;
  residentSlopeMbPerHour: number;
  p50Ms: number;
  p99Ms: number;
  p99FirstMs: number;
  p99LastMs: number;
  /** p99 of the last compared span over that of the first. */
  p99Drift: number;
  p99SlopeMsPerHour: number;
  requests: number;
  errors: number;
  runs: number;
  skipped: number;
}

const pooled = (windows: Window[], p: number) =>
  percentile(
    windows.flatMap((window) => window.latencies),
    p,
  );

export function figuresOf(windows: Window[], spans: Spans): Figures {
  const end = windows.at(-1)?.sample.at ?? 0;
  const settled = windows.filter((window) => window.sample.at > spans.warmup);
  const first = settled.filter((window) => window.sample.at <= spans.warmup + spans.compared);
  const last = settled.filter((window) => window.sample.at > end - spans.compared);
  const p99First = pooled(first, 99);
  const p99Last = pooled(last, 99);
  const total = (key: 'requests' | 'errors' | 'runs' | 'skipped') => windows.reduce((sum, window) => sum + window.sample[key], 0);
  return {
    residentAfterWarmupMb: settled[0]?.sample.residentMb ?? Number.NaN,
    residentEndMb: windows.at(-1)?.sample.residentMb ?? Number.NaN,
    residentSlopeMbPerHour: slope(settled.map(({ sample }) => ({ x: sample.at / 3600, y: sample.residentMb }))),
    p50Ms: pooled(settled, 50),
    p99Ms: pooled(settled, 99),
    p99FirstMs: p99First,
    p99LastMs: p99Last,
    p99Drift: p99Last / p99First,
    p99SlopeMsPerHour: slope(settled.map(({ sample }) => ({ x: sample.at / 3600, y: sample.p99 }))),
    requests: total('requests'),
    errors: total('errors'),
    runs: total('runs'),
    skipped: total('skipped'),
  };
}

const round = (value: number, digits = 2) => Number(value.toFixed(digits));

/**
 * The final table: one row per figure, Skillet beside the baseline, their difference, and
 * their ratio where one means something (not for counts, nor against a baseline at or
 * below zero, as a slope may be).
 */
export function figureRows(ours: Figures, base: Figures, spans: Spans) {
  const span = `${round(spans.compared / 60, 1)} min`;
  const rows: [string, number, number, boolean][] = [
    ['resident memory after warm-up (MB)', ours.residentAfterWarmupMb, base.residentAfterWarmupMb, true],
    ['resident memory at the end (MB)', ours.residentEndMb, base.residentEndMb, true],
    ['resident memory slope after warm-up (MB/hour)', ours.residentSlopeMbPerHour, base.residentSlopeMbPerHour, true],
    ['request latency p50 after warm-up (ms)', ours.p50Ms, base.p50Ms, true],
    ['request latency p99 after warm-up (ms)', ours.p99Ms, base.p99Ms, true],
    [`p99 of the first ${span} after warm-up (ms)`, ours.p99FirstMs, base.p99FirstMs, true],
    [`p99 of the last ${span} (ms)`, ours.p99LastMs, base.p99LastMs, true],
    ['p99 drift: last span / first span', ours.p99Drift, base.p99Drift, true],
    ['p99 slope after warm-up, per-window p99s (ms/hour)', ours.p99SlopeMsPerHour, base.p99SlopeMsPerHour, true],
    ['requests answered', ours.requests, base.requests, false],
    ['errors (failed or timed-out requests, broken runs)', ours.errors, base.errors, false],
    ['runs completed', ours.runs, base.runs, false],
    ['runs skipped: every workspace busy', ours.skipped, base.skipped, false],
  ];
  return rows.map(([figure, skillet, baseline, withRatio]) => ({
    figure,
    skillet: round(skillet),
    baseline: round(baseline),
    'skillet - baseline': round(skillet - baseline),
    'skillet / baseline': withRatio && baseline > 0 ? round(skillet / baseline) : '-',
  }));
}

/** The live heap (JavaScript heap and the buffers it owns) after a forced collection, before and after the soak. */
export function heapRows(before: Pair<MemoryReading>, after: Pair<MemoryReading>) {
  const mb = (bytes: number) => bytes / 1024 / 1024;
  const rows: [string, number, number][] = [
    ['live heap after a forced collection, before the soak (MB)', mb(before.ours.heap), mb(before.base.heap)],
    ['live heap after a forced collection, after the soak (MB)', mb(after.ours.heap), mb(after.base.heap)],
  ];
  const growth = { ours: mb(after.ours.heap - before.ours.heap), base: mb(after.base.heap - before.base.heap) };
  return [
    ...rows.map(([figure, skillet, baseline]) => ({
      figure,
      skillet: round(skillet),
      baseline: round(baseline),
      'skillet - baseline': round(skillet - baseline),
      'skillet / baseline': round(skillet / baseline),
    })),
    // Growths are small and of either sign, so their ratio says nothing: only the difference.
    {
      figure: 'live heap growth over the soak (MB)',
      skillet: round(growth.ours),
      baseline: round(growth.base),
      'skillet - baseline': round(growth.ours - growth.base),
      'skillet / baseline': '-',
    },
  ];
}
