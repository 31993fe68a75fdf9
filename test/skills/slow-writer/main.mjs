import { createWriteStream } from 'node:fs';

export default async function slowWriter({ writeFile, message, sleep }) {
  await writeFile('note.txt', 'a large file follows');
  message('writing big.bin');
  const out = createWriteStream('big.bin');
  for (let megabyte = 0; megabyte < 20; megabyte++) {
    out.write(Buffer.alloc(1024 * 1024, megabyte));
    await sleep(100);
  }
  await new Promise((resolve) => out.end(resolve));
}
