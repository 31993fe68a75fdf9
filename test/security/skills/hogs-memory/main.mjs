export default async function run(context) {
  const held = [];
  let failures = 0;
  while (held.length < 32) {
    try {
      held.push(Buffer.alloc(64 * 1024 * 1024, 1));
    } catch {
      failures += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  context.message(`holding ${held.length * 64} MiB after ${failures} failures`);
}
