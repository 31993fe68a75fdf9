/**
 * What an artifact is called in lists, headings and download names. The raw input made poor
 * titles (a JSON document, a whole paragraph, a Markdown "#"), so a title is, in order: the
 * title or name a JSON input gives, the heading of what the run wrote (an HTML page's title
 * or first heading, a Markdown file's first heading), the first line of a text input, or
 * else the skill's name. Whichever it is comes out as one clean line, cut short at a word.
 */

const TITLE_MAX = 80;
/** How much of the main file is read for its heading. */
export const HEADING_SCAN_BYTES = 64 * 1024;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' ';
    }
    return ENTITIES[name.toLowerCase()] ?? entity;
  });
}

/** One line: no control or format characters, whitespace collapsed. */
function oneLine(text: string): string {
  return text
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** At most TITLE_MAX characters, cut at a word where one is near, with an ellipsis when cut. */
function shortened(text: string): string {
  const characters = Array.from(text);
  if (characters.length <= TITLE_MAX) return text;
  const cut = characters.slice(0, TITLE_MAX - 1).join('');
  const space = cut.lastIndexOf(' ');
  return `${(space > TITLE_MAX / 2 ? cut.slice(0, space) : cut).replace(/[\s.,;:]+$/, '')}…`;
}

/** The heading of a text file the run wrote, when it has one near its start. */
export function headingOf(mimeType: string, head: string): string | undefined {
  if (mimeType === 'text/html') {
    const found = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(head) ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(head);
    const text = found ? oneLine(decodeEntities((found[1] as string).replace(/<[^>]*>/g, ' '))) : '';
    return text === '' ? undefined : text;
  }
  if (mimeType === 'text/markdown') {
    const lines = head.split('\n', 40).map((line) => line.trim());
    const heading = lines.find((line) => /^#{1,3}\s+\S/.test(line));
    const text = heading ? oneLine(heading.replace(/^#{1,3}\s+/, '').replace(/\s+#+$/, '')) : '';
    return text === '' ? undefined : text;
  }
  return undefined;
}

/** The title or name a JSON object input gives itself. */
function namedInJson(input: string): string | undefined {
  if (!input.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(input);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const named =
      'title' in parsed && typeof parsed.title === 'string' ? parsed.title : 'name' in parsed ? parsed.name : undefined;
    return typeof named === 'string' && oneLine(named) !== '' ? oneLine(named) : undefined;
  } catch {
    return undefined;
  }
}

export function titleOf(input: string, skillName: string, heading?: string): string {
  const text = input.trim();
  const structured = text.startsWith('{') || text.startsWith('[');
  const firstLine = structured ? '' : oneLine(text.split('\n').find((line) => line.trim() !== '') ?? '');
  const chosen = namedInJson(text) ?? heading ?? (firstLine.replace(/^#{1,6}\s+/, '') || oneLine(skillName));
  return shortened(chosen) || 'Artifact';
}
