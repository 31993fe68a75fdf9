export default async function counter({ input, message, sleep, writeFile, result }) {
  const [count, pause] = input.trim().split(/\s+/).map(Number);
  for (let i = 1; i <= count; i++) {
    if (i > 1) await sleep(pause);
    message(`count ${i} of ${count}`);
  }
  await writeFile('count.txt', `counted to ${count}\n`);
  result(`counted to ${count}`);
}
