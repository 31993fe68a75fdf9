import { useEffect, useState } from 'preact/hooks';
import { messageOf } from '../../api';
import { readFileText } from '../../requests/artifacts';
import { Notice } from '../../ui';
import { formatSize } from './artifacts';

export type PreviewKind = 'markdown' | 'html' | 'image' | 'text' | 'none';

/** Types the server itself treats as text besides text/*. */
const TEXT_TYPES = new Set([
  'application/json',
  'application/javascript',
  'application/xml',
  'application/x-yaml',
  'application/yaml',
]);

/** Past this size a file is offered for download instead of being pulled into the page. */
const PREVIEW_LIMIT = 1024 * 1024;

export function kindOf(mimeType: string, path = ''): PreviewKind {
  const type = (mimeType.split(';')[0] ?? '').trim().toLowerCase();
  if (type === 'text/markdown' || /\.(md|markdown)$/i.test(path)) return 'markdown';
  if (type === 'text/html') return 'html';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('text/') || TEXT_TYPES.has(type)) return 'text';
  return 'none';
}

/** Where a preview's bytes come from: text the page already holds, or a same-origin file URL. */
export type PreviewSource = { text: string } | { url: string };

/** The text of a source, fetching it when only its URL is known. */
function useText(source: PreviewSource): { text?: string; error?: string } {
  const url = 'url' in source ? source.url : undefined;
  const [fetched, setFetched] = useState<{ url: string; text?: string; error?: string }>();
  useEffect(() => {
    if (url === undefined) return;
    let current = true;
    readFileText(url).then(
      (text) => current && setFetched({ url, text }),
      (error: unknown) => current && setFetched({ url, error: messageOf(error) }),
    );
    return () => {
      current = false;
    };
  }, [url]);
  if ('text' in source) return { text: source.text };
  return fetched && fetched.url === url ? fetched : {};
}

/**
 * Markdown rendered to HTML by a renderer fetched only here (it is a chunk of its own), and
 * shown only inside a sandboxed frame: the HTML is the run's, so it must never reach the
 * app's own DOM, where it could script the signed-in page.
 */
function MarkdownFrame({ text, title }: { text: string; title: string }) {
  const [html, setHtml] = useState<string>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let current = true;
    import('marked')
      .then(({ marked }) => marked.parse(text))
      .then(
        (rendered) => current && setHtml(rendered),
        (thrown: unknown) => current && setError(messageOf(thrown)),
      );
    return () => {
      current = false;
    };
  }, [text]);
  if (error) return <Notice kind="error">The Markdown could not be rendered: {error}</Notice>;
  if (html === undefined) return <p aria-busy="true">Rendering…</p>;
  return <iframe sandbox="" class="preview" title={title} srcdoc={frameDocument(html)} />;
}

function frameDocument(body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Preview</title></head><body>${body}</body></html>`;
}

function TextBlock({ text }: { text: string }) {
  return <pre class="artifact-text">{text}</pre>;
}

/** An image, with a word in its place until it has loaded (a large chart takes a moment on a phone). */
function ImagePreview({ url, title }: { url: string; title: string }) {
  const [state, setState] = useState<{ url: string; done: 'loaded' | 'failed' }>();
  const done = state?.url === url ? state.done : undefined;
  return (
    <>
      {done === undefined && <p aria-busy="true">Loading the image…</p>}
      {done === 'failed' && <Notice kind="error">The image could not be loaded. Download it to open it.</Notice>}
      <img
        class="artifact-image"
        src={url}
        alt={title}
        hidden={done !== 'loaded'}
        onLoad={() => setState({ url, done: 'loaded' })}
        onError={() => setState({ url, done: 'failed' })}
      />
    </>
  );
}

function FetchedPreview({ kind, source, title }: { kind: 'markdown' | 'text'; source: PreviewSource; title: string }) {
  const { text, error } = useText(source);
  if (error) return <Notice kind="error">{error}</Notice>;
  if (text === undefined) return <p aria-busy="true">Loading the file…</p>;
  return kind === 'markdown' ? <MarkdownFrame text={text} title={title} /> : <TextBlock text={text} />;
}

/**
 * A preview of one file by its kind. HTML is framed with every sandbox restriction (no
 * scripts, an opaque origin); the server sends file routes with a sandbox CSP as well.
 */
export function Preview({
  kind,
  source,
  title,
  size,
}: {
  kind: PreviewKind;
  source: PreviewSource;
  title: string;
  size: number;
}) {
  if (kind === 'none') return <p class="muted">There is no preview for this type of file; download it to open it.</p>;
  if (kind === 'image') {
    return 'url' in source ? <ImagePreview url={source.url} title={title} /> : null;
  }
  if ('url' in source && size > PREVIEW_LIMIT && kind !== 'html') {
    return <p class="muted">This file is {formatSize(size)}, too large to preview here; download it to open it.</p>;
  }
  // A bundle's pages open under a preview link (artifact-files.tsx); a single page is its own text.
  if (kind === 'html') return 'text' in source ? <iframe sandbox="" class="preview" title={title} srcdoc={source.text} /> : null;
  return <FetchedPreview kind={kind} source={source} title={title} />;
}
