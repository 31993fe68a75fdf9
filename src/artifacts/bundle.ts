import { lookup } from 'mime-types';

/** One stored file of an artifact. */
export interface BundleFile {
  path: string;
  sha256: string;
  crc32: number;
  size: number;
  mimeType: string;
}

export interface Manifest {
  version: '1';
  bundleType: 'directory';
  files: { path: string; checksum: string; size: number; mimeType: string }[];
  createdAt: string;
}

export function mimeTypeOf(filePath: string): string {
  return lookup(filePath) || 'application/octet-stream';
}

const TEXT_TYPES = new Set([
  'application/json',
  'application/javascript',
  'application/xml',
  'application/x-yaml',
  'application/yaml',
  'image/svg+xml',
]);

export function isText(mimeType: string): boolean {
  return mimeType.startsWith('text/') || TEXT_TYPES.has(mimeType);
}

const MAIN_NAMES = ['index.html', 'README.md', 'SKILL.md'];

/**
 * The file that stands for a bundle: the shallowest index.html, README.md or SKILL.md (in
 * that order at equal depth), else the first text file, else none.
 */
export function mainFileOf(files: BundleFile[]): BundleFile | undefined {
  const depth = (file: BundleFile) => file.path.split('/').length;
  const named = files
    .filter((file) => MAIN_NAMES.includes(file.path.split('/').pop() ?? ''))
    .sort(
      (a, b) =>
        depth(a) - depth(b) ||
        MAIN_NAMES.indexOf(a.path.split('/').pop() ?? '') - MAIN_NAMES.indexOf(b.path.split('/').pop() ?? ''),
    );
  return named[0] ?? files.find((file) => isText(file.mimeType));
}

export function manifestOf(files: BundleFile[], createdAt: string): Manifest {
  return {
    version: '1',
    bundleType: 'directory',
    files: files.map((file) => ({
      path: file.path,
      checksum: `sha256:${file.sha256}`,
      size: file.size,
      mimeType: file.mimeType,
    })),
    createdAt,
  };
}

/**
 * A download's file name from a bundle's title or a single file's own name: no control
 * characters or path separators, at most 100 characters, no trailing dots, with the
 * extension the content calls for. Encoding it for the header is
 * content-disposition's job (RFC 6266 with an RFC 5987 `filename*`).
 */
export function downloadName(title: string, extension: string): string {
  const cleaned = title
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/[/\\]+/g, '_')
    .replace(/\s+/g, ' ')
    .trim();
  // Trailing dots and spaces would double up with the extension (and Windows drops them).
  const base =
    Array.from(cleaned)
      .slice(0, 100)
      .join('')
      .replace(/[.\s]+$/, '') || 'artifact';
  return extension && !base.toLowerCase().endsWith(extension.toLowerCase()) ? `${base}${extension}` : base;
}

/**
 * A path inside a bundle as a client may ask for it: relative, forward slashes, no empty,
 * `.` or `..` segment, no NUL or backslash. Anything else names no file.
 */
export function isBundlePath(candidate: string): boolean {
  if (candidate === '' || candidate.length > 1024) return false;
  if (candidate.includes('\0') || candidate.includes('\\') || candidate.startsWith('/')) return false;
  return candidate.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}
