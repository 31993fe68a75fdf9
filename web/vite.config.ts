import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));
const outDir = path.resolve(here, '..', process.env.WEB_BUILD_DIR ?? 'dist/web');

/** Writes .br and .gz beside each text file, which the server sends to clients that take them. */
function precompress(): Plugin {
  return {
    name: 'skillet-precompress',
    apply: 'build',
    async writeBundle() {
      const entries = await readdir(outDir, { recursive: true, withFileTypes: true });
      for (const entry of entries) {
        if (!entry.isFile() || !/\.(html|js|css|svg|json|webmanifest)$/.test(entry.name)) continue;
        const file = path.join(entry.parentPath, entry.name);
        const body = await readFile(file);
        await writeFile(`${file}.gz`, gzipSync(body, { level: 9 }));
        await writeFile(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      }
    },
  };
}

export default defineConfig({
  root: here,
  base: '/app/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  resolve: { alias: { react: 'preact/compat', 'react-dom': 'preact/compat' } },
  build: { outDir, emptyOutDir: true, target: 'es2022', modulePreload: { polyfill: false }, sourcemap: false },
  plugins: [precompress()],
});
