/** Input "N MS": N numbered messages, MS milliseconds apart. */
export default async function ticker({ input, message, result, sleep }) {
  const [countText, intervalText] = input.trim().split(/\s+/);
  const count = Math.min(Math.max(Number.parseInt(countText ?? '', 10) || 10, 1), 10_000);
  const interval = Math.min(Math.max(Number.parseInt(intervalText ?? '', 10) || 500, 0), 60_000);
  for (let tick = 1; tick <= count; tick++) {
    if (tick > 1) await sleep(interval);
    message(`tick ${tick} of ${count}`);
  }
  result(`${count} ticks, ${interval} ms apart`);
}
