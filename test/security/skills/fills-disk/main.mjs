import { closeSync, openSync, writeSync } from 'node:fs';

export default async function run(context) {
  const chunk = Buffer.alloc(1024 * 1024, 7);
  let file = 0;
  let fd = openSync(`fill-${file}.bin`, 'w');
  for (let written = 0; written < 512; written++) {
    try {
      writeSync(fd, chunk);
    } catch {
      closeSync(fd);
      file += 1;
      fd = openSync(`fill-${file}.bin`, 'w');
    }
  }
  closeSync(fd);
  context.message(`wrote 512 MiB in ${file + 1} files`);
}
