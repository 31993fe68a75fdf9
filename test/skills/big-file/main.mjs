import { writeFileSync } from 'node:fs';
export default async function run({ message }) {
  message('writing 50 MB');
  writeFileSync('big.bin', Buffer.alloc(50 * 1024 * 1024, 1));
}
