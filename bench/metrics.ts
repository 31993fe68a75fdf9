/**
 * The metrics of the Skillet servers a suite starts. Apart from processes.ts, whose exit
 * and signal handlers a server process must not take on, so that server.ts may import it.
 */

import { seriesValue } from '../test/helpers/metrics.js';

/** The metrics token of every Skillet a suite starts: production runs with metrics on. */
export const METRICS_TOKEN = 'bench-metrics-token-0123456789';

/** One series' value (`name{labels}`) in a Skillet's metrics scrape at `metricsUrl`, or undefined when it has none. */
export async function metricValue(metricsUrl: string, series: string): Promise<number | undefined> {
  const response = await fetch(metricsUrl, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  if (!response.ok) throw new Error(`${metricsUrl}: ${response.status}`);
  return seriesValue(await response.text(), series);
}
