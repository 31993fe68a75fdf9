export default async function run({ message }) {
  message('spinning');
  for (;;) {
    // a busy loop: only the CPU limit or the time limit stops this
  }
}
