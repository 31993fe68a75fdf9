/** Deterministic bytes, different for every file: a tiny xorshift generator seeded by the path. */
function bytesFor(path, length) {
  let state = 2166136261;
  for (const char of path) state = Math.imul(state ^ char.charCodeAt(0), 16777619) >>> 0;
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[i] = state & 0xff;
  }
  return bytes;
}

export default async function writer({ input, writeFile, result }) {
  const { files } = JSON.parse(input);
  for (const file of files) await writeFile(file.path, file.text ?? bytesFor(file.path, file.bytes ?? 0));
  result(`${files.length} files`);
}
