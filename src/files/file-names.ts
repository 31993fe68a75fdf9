import path from 'node:path';
import { lookup } from 'mime-types';

/** Longest cleaned name, in UTF-8 bytes: well under the 255 most file systems allow, with room for " (999)". */
const NAME_MAX_BYTES = 200;
/** An extension longer than this is not kept apart when a long name is shortened. */
const EXTENSION_MAX_BYTES = 20;

/**
 * Characters a name loses: controls (newlines, NUL, escapes), format characters (the
 * right-to-left override that makes `exe.pdf` read as `fdp.exe`) and line separators.
 */
const UNWANTED = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The longest start of `text` (whole characters) within `maxBytes`. */
function truncateBytes(text: string, maxBytes: number): string {
  let kept = '';
  for (const char of text) {
    if (utf8Bytes(kept + char) > maxBytes) break;
    kept += char;
  }
  return kept;
}

function shorten(name: string): string {
  if (utf8Bytes(name) <= NAME_MAX_BYTES) return name;
  const extension = path.posix.extname(name);
  const keep = extension !== '' && utf8Bytes(extension) <= EXTENSION_MAX_BYTES ? extension : '';
  return truncateBytes(name.slice(0, name.length - keep.length), NAME_MAX_BYTES - utf8Bytes(keep)).trimEnd() + keep;
}

/**
 * A name safe to show and to put in a folder: its last path part only (either slash), no
 * control or format characters, no leading dots (no hidden files, no `..`), no blank ends,
 * at most NAME_MAX_BYTES. What is left of nothing is `fallback`.
 */
export function cleanFileName(raw: string, fallback = 'file'): string {
  const last = raw.normalize('NFC').split(/[/\\]/).pop() ?? '';
  const cleaned = shorten(
    last
      .replace(UNWANTED, '')
      .trim()
      .replace(/^[.\s]+/, ''),
  );
  return cleaned === '' ? fallback : cleaned;
}

/**
 * The folder an artifact's files go under, from its title (a run's input, which may hold
 * slashes and new lines): the whole title, slashes and white space runs made single spaces.
 */
export function folderNameOf(title: string): string {
  return cleanFileName(title.replace(/[/\\\s]+/g, ' '), 'artifact');
}

/**
 * `name` if it is not yet in `taken`, else the first free `name (2).ext`, `name (3).ext`...;
 * the answer is added to `taken`.
 */
export function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name;
  const extension = path.posix.extname(name);
  const base = name.slice(0, name.length - extension.length);
  for (let copy = 2; taken.has(candidate); copy++) candidate = `${base} (${copy})${extension}`;
  taken.add(candidate);
  return candidate;
}

const GENERIC = 'application/octet-stream';

/** A media type as a client may state it: `type/subtype`, without parameters. */
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/**
 * The type a file is stored (and served) with: the one its extension names (unless that is
 * octet-stream, as for `.bin`), else the one the client stated when it is a well-formed type that says something, else octet-stream. The
 * extension comes first because clients state a form's own type (curl's raw uploads say
 * `application/x-www-form-urlencoded`) or octet-stream for most files.
 */
export function mimeTypeFor(filename: string, stated: string | undefined): string {
  const byExtension = lookup(filename);
  if (byExtension && byExtension !== GENERIC) return byExtension;
  const declared = stated?.split(';')[0]?.trim().toLowerCase() ?? '';
  const meaningless = declared.startsWith('multipart/') || declared === 'application/x-www-form-urlencoded';
  return MEDIA_TYPE.test(declared) && !meaningless ? declared : GENERIC;
}
