export default async function chatty({ input, message }) {
  const numbers = input.trim().split(/\s+/).map(Number);
  let sent = 0;
  for (let pair = 0; pair + 1 < numbers.length; pair += 2) {
    const [count, size] = [numbers[pair], numbers[pair + 1]];
    for (let i = 0; i < count; i++) {
      sent += 1;
      message(`${sent} `.padEnd(size, 'x'));
    }
  }
}
