/**
 * The stylesheet of the pages the server renders itself (device activation without
 * JavaScript, OAuth sign-in and consent, the connect page, the test checkout, the payment
 * return, the docs): the web app's look (web/src/styles.css), its colours, header band, card and
 * buttons, so a person moving between the app and these pages sees one product.
 */
export const PAGE_CSS = `
:root {
  --ink: #1b1f24; --muted: #4b5563; --paper: #f7f7f5; --card: #ffffff; --line: #d5d7db;
  --brand: #1f3a5f; --accent: #0b5cad; --danger: #a4161a; --ok: #1b6b3a; --warn: #8a5a00;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--ink); background: var(--paper); line-height: 1.45;
}
* { box-sizing: border-box; }
body { margin: 0; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.top { display: flex; align-items: center; gap: 12px; padding: 10px 16px; background: var(--brand); color: #fff; }
.brand { font-weight: 700; font-size: 1.15rem; color: #fff; text-decoration: none; }
main { width: min(30rem, calc(100% - 24px)); margin: 24px auto; padding: 16px 20px 20px; background: var(--card);
  border: 1px solid var(--line); border-radius: 10px; }
h1 { font-size: 1.5rem; margin: 8px 0 12px; }
label { display: block; margin: 10px 0 4px; font-weight: 600; }
input, select { width: 100%; padding: 8px 10px; font: inherit; color: var(--ink); background: #fff;
  border: 1px solid #8b929b; border-radius: 6px; min-height: 40px; }
button { margin-top: 16px; padding: 8px 14px; min-height: 40px; font: inherit; font-weight: 600; color: var(--ink);
  background: #fff; border: 1px solid #8b929b; border-radius: 6px; cursor: pointer; }
.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
.secondary { background: #fff; }
.code { font: 700 2rem/1.2 ui-monospace, SFMono-Regular, Menlo, monospace; letter-spacing: .12em; text-align: center;
  margin: 8px 0 16px; }
.facts { display: grid; grid-template-columns: auto 1fr; gap: 4px 16px; margin: 0 0 16px; overflow-wrap: anywhere; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; }
.reported { display: block; font-size: .8rem; font-style: italic; }
.scopes { padding-left: 1.2rem; }
.notice { padding: 10px 12px; border-radius: 6px; border: 1px solid var(--danger); color: var(--danger); background: #fdf0f0; }
.test-mode { padding: 10px 12px; border-radius: 6px; border: 2px solid var(--warn); color: var(--warn); background: #fff8e6;
  font-weight: 700; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; }
.actions form { margin: 0; }
details { margin-top: 12px; color: var(--muted); font-size: .9rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; overflow-wrap: anywhere; }
main:has(> .doc) { width: min(52rem, calc(100% - 24px)); }
.doc h2 { font-size: 1.25rem; margin: 28px 0 8px; }
.doc h3 { font-size: 1.05rem; margin: 20px 0 6px; }
.doc pre { overflow-x: auto; padding: 10px 12px; background: #f1f2f4; border: 1px solid var(--line); border-radius: 6px;
  font-size: .85rem; line-height: 1.4; }
.doc pre code { overflow-wrap: normal; }
.doc-nav { display: flex; flex-wrap: wrap; gap: 4px 16px; padding-bottom: 10px; border-bottom: 1px solid var(--line); }
.doc-nav a[aria-current="page"] { font-weight: 700; color: var(--ink); }
`;
