/** Input "N MS": N numbered messages, MS milliseconds apart. */
/** A whole number from the text, within bounds, or the fallback when there is none (0 is a number). */
function wholeNumber(text, fallback, min, max) {
  const value = Number.parseInt(text ?? '', 10);
  return Number.isNaN(value) ? fallback : Math.min(Math.max(value, min), max);
}

export default async function ticker({ input, message, result, sleep }) {
  const [countText, intervalText] = input.trim().split(/\s+/);
  const count = wholeNumber(countText, 10, 1, 10_000);
  const interval = wholeNumber(intervalText, 500, 0, 60_000);
  for (let tick = 1; tick <= count; tick++) {
    if (tick > 1) await sleep(interval);
    message(`tick ${tick} of ${count}`);
  }
  result(`${count} ticks, ${interval} ms apart`);
}
