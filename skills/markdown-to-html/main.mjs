import { marked } from 'marked';

const STYLE = `:root { color-scheme: light dark; }
body { font: 17px/1.6 system-ui, sans-serif; max-width: 46rem; margin: 2.5rem auto; padding: 0 1.2rem; }
h1, h2, h3 { line-height: 1.25; }
pre, code { font: 0.92em ui-monospace, monospace; }
pre { padding: 0.9rem 1rem; overflow-x: auto; border-radius: 8px; background: color-mix(in srgb, CanvasText 7%, transparent); }
blockquote { margin: 0; padding-left: 1rem; border-left: 3px solid color-mix(in srgb, CanvasText 25%, transparent); }
table { border-collapse: collapse; }
th, td { padding: 0.3rem 0.7rem; border: 1px solid color-mix(in srgb, CanvasText 20%, transparent); }
img { max-width: 100%; }
`;

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]);
}

/** The first heading's text, else a fallback. */
function titleOf(markdown) {
  const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/m.exec(markdown);
  return heading ? heading[1] : 'Document';
}

export default async function run({ input, toolUse, writeFile, message, result }) {
  toolUse('render', 'Rendering Markdown');
  const body = await marked.parse(input, { gfm: true });
  const title = escapeHtml(titleOf(input));
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="style.css">
</head>
<body>
${body}</body>
</html>
`;
  await writeFile('index.html', page);
  await writeFile('style.css', STYLE);
  message(`Rendered "${titleOf(input)}" to index.html (${Buffer.byteLength(page)} bytes) and style.css.`);
  result('index.html, style.css');
}
