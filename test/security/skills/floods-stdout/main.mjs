import { once } from 'node:events';

export default async function run() {
  const chunk = 'x'.repeat(1024 * 1024);
  for (let written = 0; written < 600; written++) {
    if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
  }
  process.stdout.write('\n');
}
