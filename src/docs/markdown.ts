import { escapeHtml } from '../http/html.js';

/**
 * A small Markdown renderer for the guide pages (docs/guide/*.md), which are ours, not a
 * visitor's: headings, paragraphs, lists, fenced code, and inline code, bold and links.
 * Every piece of text is escaped all the same, and a link may only lead to this server's
 * pages, an anchor or an http(s) address, so a slip in a guide cannot become a script.
 */

/** A heading's anchor: "Ds (credits)" is ds-credits. */
export function anchorOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/[`*]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

const SAFE_LINK = /^(\/(?!\/)|#|https?:\/\/)/;

function inline(text: string): string {
  // Code first, so nothing inside backticks is read as bold or a link.
  return text
    .split(/(`[^`]+`)/)
    .map((part) => {
      if (part.startsWith('`') && part.endsWith('`') && part.length > 1) {
        return `<code>${escapeHtml(part.slice(1, -1))}</code>`;
      }
      return escapeHtml(part)
        .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
        .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (whole, label: string, href: string) =>
          // The address is escaped already; only its scheme is left to check.
          SAFE_LINK.test(href) ? `<a href="${href}">${label}</a>` : whole,
        );
    })
    .join('');
}

export interface RenderedPage {
  /** The page's first heading, for its title. */
  title: string;
  html: string;
}

/** Renders a guide page's Markdown to HTML. */
export function renderMarkdown(source: string): RenderedPage {
  const lines = source.replace(/\r\n/g, '\n').split('\n');
  const out: string[] = [];
  let title = '';
  let paragraph: string[] = [];
  let list: { tag: 'ul' | 'ol'; items: string[] } | null = null;
  const flush = () => {
    if (paragraph.length) out.push(`<p>${inline(paragraph.join(' '))}</p>`);
    paragraph = [];
    if (list) out.push(`<${list.tag}>${list.items.map((item) => `<li>${inline(item)}</li>`).join('')}</${list.tag}>`);
    list = null;
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const fence = /^```(\w*)\s*$/.exec(line);
    if (fence) {
      flush();
      const code: string[] = [];
      for (index++; index < lines.length && !/^```\s*$/.test(lines[index] as string); index++) code.push(lines[index] as string);
      const language = fence[1] ? ` data-language="${escapeHtml(fence[1])}"` : '';
      // Focusable, so a keyboard can scroll a wide example sideways.
      out.push(`<pre tabindex="0"${language}><code>${escapeHtml(code.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,3}) (.+)$/.exec(line);
    if (heading) {
      flush();
      const level = (heading[1] as string).length;
      const text = heading[2] as string;
      if (level === 1 && !title) title = text;
      out.push(`<h${level} id="${anchorOf(text)}">${inline(text)}</h${level}>`);
      continue;
    }
    const item = /^(-|\d+\.) (.+)$/.exec(line);
    if (item) {
      const tag = item[1] === '-' ? 'ul' : 'ol';
      if (paragraph.length || (list && list.tag !== tag)) flush();
      list ??= { tag, items: [] };
      list.items.push(item[2] as string);
      continue;
    }
    if (line.trim() === '') {
      flush();
      continue;
    }
    // An indented line goes on the list item above it.
    if (list && /^\s+\S/.test(line)) {
      list.items[list.items.length - 1] += ` ${line.trim()}`;
      continue;
    }
    if (list) flush();
    paragraph.push(line.trim());
  }
  flush();
  return { title, html: out.join('\n') };
}
