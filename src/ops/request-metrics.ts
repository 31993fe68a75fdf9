const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60, 600];

const COUNT = 'skillet_http_requests_total';
const LATENCY = 'skillet_http_request_duration_seconds';

/** One (method, route, status class): how many answers, and how long they took. */
class RequestSeries {
  count = 0;
  sum = 0;
  /** Answers per latency bucket, not yet cumulative; the last is past every bound. */
  readonly perBucket = new Array<number>(LATENCY_BUCKETS.length + 1).fill(0);

  constructor(readonly labels: string) {}

  observe(seconds: number): void {
    this.count++;
    this.sum += seconds;
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > (LATENCY_BUCKETS[bucket] as number)) bucket++;
    this.perBucket[bucket] = (this.perBucket[bucket] as number) + 1;
  }
}

/** A label value in the text format: backslash, double quote and line feed escaped. */
function labelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/**
 * The answered-requests counter and latency histogram, counted in plain numbers and written
 * in Prometheus's text format when scraped. prom-client validates and hashes the labels of
 * every observation, a measurable share of the cheapest requests; here an answer costs a
 * map lookup and a few additions. The lines are those prom-client wrote for the same
 * metrics (names, help, label order, `le` first).
 */
export class RequestMetrics {
  /** Every series in the order it first answered, as prom-client listed them. */
  readonly #series: RequestSeries[] = [];
  /**
   * The same series by route, then method, then status class (1-5): the route and method
   * strings are the same objects request after request, so each lookup hashes nothing new,
   * where a key built per answer was a string to make and hash every time.
   */
  readonly #byRoute = new Map<string, Map<string, RequestSeries[]>>();

  /** Records one answered request; `route` is the pattern, never the URL (unbounded label values). */
  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.#byRoute.get(route);
    if (!byMethod) {
      byMethod = new Map();
      this.#byRoute.set(route, byMethod);
    }
    let byClass = byMethod.get(method);
    if (!byClass) {
      byClass = [];
      byMethod.set(method, byClass);
    }
    const statusClass = Math.floor(status / 100);
    let series = byClass[statusClass];
    if (!series) {
      series = new RequestSeries(`method="${labelValue(method)}",route="${labelValue(route)}",status_class="${statusClass}xx"`);
      byClass[statusClass] = series;
      this.#series.push(series);
    }
    series.observe(seconds);
  }

  /** Both metrics in the text exposition format, each block ending in a line feed. */
  render(): string {
    const count = [`# HELP ${COUNT} HTTP requests answered, by route pattern and status class`, `# TYPE ${COUNT} counter`];
    const latency = [
      `# HELP ${LATENCY} Time to answer an HTTP request (an event stream: how long it stayed open)`,
      `# TYPE ${LATENCY} histogram`,
    ];
    for (const series of this.#series) {
      count.push(`${COUNT}{${series.labels}} ${series.count}`);
      let cumulative = 0;
      LATENCY_BUCKETS.forEach((bound, i) => {
        cumulative += series.perBucket[i] as number;
        latency.push(`${LATENCY}_bucket{le="${bound}",${series.labels}} ${cumulative}`);
      });
      latency.push(`${LATENCY}_bucket{le="+Inf",${series.labels}} ${series.count}`);
      latency.push(`${LATENCY}_sum{${series.labels}} ${series.sum}`);
      latency.push(`${LATENCY}_count{${series.labels}} ${series.count}`);
    }
    return `${count.join('\n')}\n\n${latency.join('\n')}\n`;
  }
}
