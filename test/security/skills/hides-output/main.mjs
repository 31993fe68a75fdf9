import { openSync, unlinkSync, writeSync } from 'node:fs';

// Each file alone stops at the file-size limit, so the writes are spread over many files,
// each deleted as soon as it is open: no look at the folder sees any of them.
const FILES = 16;

export default async function run(context) {
  const chunk = Buffer.alloc(1024 * 1024, 7);
  const held = [];
  let total = 0;
  let refusal;
  for (let file = 0; file < FILES && !refusal; file++) {
    const name = `hidden-${file}.bin`;
    try {
      held.push(openSync(name, 'w'));
    } catch (error) {
      refusal = error.code;
      break;
    }
    unlinkSync(name);
    for (;;) {
      try {
        total += writeSync(held.at(-1), chunk);
      } catch (error) {
        if (error.code !== 'EFBIG') refusal = error.code;
        break;
      }
    }
  }
  context.message(`held ${total} bytes in deleted files, stopped by ${refusal ?? 'nothing'}`);
  // It keeps them open and keeps trying, as an attacker would, for five seconds.
  const end = Date.now() + 5000;
  while (Date.now() < end) {
    for (const fd of held) {
      try {
        writeSync(fd, chunk);
      } catch {
        // refused: try again shortly
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  context.message('still holding every file');
}
