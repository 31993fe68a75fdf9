/**
 * A web page as the text a reader sees, for a model: headings, paragraphs, list items and
 * links (as `[text](address)`, so it can follow them) kept; scripts, styles and markup
 * dropped. One pass over the page, linear in its length, so a hostile page costs no more
 * than its size (it is at most 1 MB by then).
 */

/** Elements whose content is not text a reader sees (the title is read on its own, first). */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'canvas', 'title']);
const BLOCKS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'footer',
  'form',
  'header',
  'hr',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tr',
  'ul',
]);
const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  mdash: '—',
  ndash: '–',
  hellip: '…',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  bull: '•',
  middot: '·',
  copy: '©',
  reg: '®',
  trade: '™',
  times: '×',
  euro: '€',
  pound: '£',
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}

/** Where a tag that opens at `start` closes, skipping `>` inside quoted attribute values. */
function tagEnd(html: string, start: number): number {
  let quote = '';
  for (let i = start + 1; i < html.length; i++) {
    const c = html[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return i;
  }
  return html.length;
}

function hrefOf(tag: string, base: URL): string | undefined {
  const match = /\shref\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(tag);
  const raw = decodeEntities(match?.[2] ?? match?.[3] ?? match?.[4] ?? '').trim();
  if (raw === '' || raw.startsWith('#') || raw.length > 2000) return undefined;
  try {
    const url = new URL(raw, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

export function htmlToText(html: string, base: URL): string {
  const lower = html.toLowerCase();
  const title = /<title[^>]{0,200}>([^<]{1,500})<\/title/i.exec(html)?.[1];
  const out: string[] = title ? [`Title: ${decodeEntities(title).trim()}\n\n`] : [];
  const links: (string | undefined)[] = [];
  let inPre = 0;
  let i = 0;
  while (i < html.length) {
    const open = html.indexOf('<', i);
    const textEnd = open < 0 ? html.length : open;
    if (textEnd > i) {
      let text = decodeEntities(html.slice(i, textEnd));
      if (inPre === 0) {
        text = text.replace(/\s+/g, ' ');
        const last = out.at(-1);
        if (last === undefined || /^\s?$/.test(last.at(-1) ?? '')) text = text.trimStart();
      }
      out.push(text);
    }
    if (open < 0) break;
    if (html.startsWith('<!--', open)) {
      const close = html.indexOf('-->', open + 4);
      i = close < 0 ? html.length : close + 3;
      continue;
    }
    const nameMatch = /^<(\/?)([a-z][a-z0-9-]*)/i.exec(html.slice(open, open + 40));
    if (!nameMatch && html[open + 1] !== '!' && html[open + 1] !== '?') {
      out.push('<');
      i = open + 1;
      continue;
    }
    const end = tagEnd(html, open);
    i = end + 1;
    if (!nameMatch) continue;
    const closing = nameMatch[1] === '/';
    const name = (nameMatch[2] ?? '').toLowerCase();
    if (!closing && SKIPPED.has(name)) {
      const close = lower.indexOf(`</${name}`, i);
      i = close < 0 ? html.length : tagEnd(html, close) + 1;
      continue;
    }
    if (name === 'pre') inPre = Math.max(0, inPre + (closing ? -1 : 1));
    if (/^h[1-6]$/.test(name)) out.push(closing ? '\n\n' : `\n\n${'#'.repeat(Number(name[1]))} `);
    else if (name === 'li' && !closing) out.push('\n- ');
    else if (name === 'td' || name === 'th') out.push(closing ? '' : ' | ');
    else if (name === 'a' && !closing) {
      const href = hrefOf(html.slice(open, Math.min(end, open + 4000)), base);
      links.push(href);
      if (href) out.push('[');
    } else if (name === 'a') {
      const href = links.pop();
      if (href) out.push(`](${href})`);
    } else if (BLOCKS.has(name)) out.push(name === 'p' || name === 'pre' ? '\n\n' : '\n');
  }
  return out
    .join('')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
