/** Input "N MS": N numbered messages, MS milliseconds apart. */
export default async function run({ input, message, result, sleep }) {
  const [count, interval] = input.trim().split(/\s+/).map(Number);
  for (let tick = 1; tick <= count; tick++) {
    if (tick > 1) await sleep(interval);
    message(`tick ${tick} of ${count}`);
  }
  result(`${count} ticks`);
}
