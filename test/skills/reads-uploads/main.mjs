import { createHash } from 'node:crypto';
import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

async function attempt(action) {
  try {
    await action();
    return 'allowed';
  } catch (error) {
    return error.code ?? error.message;
  }
}

export default async function readsUploads({ writeFile: writeOutput, result }) {
  const entries = await readdir('uploads', { recursive: true, withFileTypes: true });
  const files = [];
  for (const entry of entries.filter((one) => one.isFile())) {
    const absolute = path.join(entry.parentPath, entry.name);
    const bytes = await readFile(absolute);
    files.push({
      path: path.relative('uploads', absolute),
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  const first = files[0] && path.join('uploads', files[0].path);
  const writes = {
    create: await attempt(() => writeFile('uploads/new.txt', 'x')),
    append: first ? await attempt(() => appendFile(first, 'x')) : 'no file',
  };
  await writeOutput('report.json', JSON.stringify({ files, writes }));
  result(`${files.length} files`);
}
