/** The value of one series (`name{labels}`) in a Prometheus scrape, or undefined when absent. */
export function seriesValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
