import { writeFileSync } from 'node:fs';

function attempt(what, action) {
  try {
    action();
    return `${what}: done`;
  } catch (error) {
    return `${what}: refused (${error.code ?? error.message})`;
  }
}

/** Input: {dataDir, marker}. Tries to kill the server and to leave files outside its folder, then holds the CPU. */
export default async function run({ input, message }) {
  const { dataDir, marker } = JSON.parse(input);
  for (const target of [`${dataDir}/${marker}`, `/tmp/${marker}`, new URL(`./${marker}`, import.meta.url).pathname]) {
    message(attempt(`write ${target}`, () => writeFileSync(target, 'pwned')));
  }
  message(attempt(`SIGKILL parent ${process.ppid}`, () => process.kill(process.ppid, 'SIGKILL')));
  for (;;) {
    // a busy loop: only the CPU limit or the time limit stops this
  }
}
