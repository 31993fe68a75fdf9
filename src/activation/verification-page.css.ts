export const VERIFICATION_PAGE_CSS = `
:root { color-scheme: light dark; --accent: #c2410c; --muted: #6b7280; }
* { box-sizing: border-box; }
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; display: grid; place-items: center; min-height: 100vh; background: Canvas; color: CanvasText; }
main { width: min(26rem, 92vw); padding: 2rem; border: 1px solid color-mix(in srgb, CanvasText 15%, transparent); border-radius: 12px; }
h1 { font-size: 1.3rem; margin: 0 0 1rem; }
label { display: block; margin: .8rem 0 .2rem; font-weight: 600; }
input, select { width: 100%; padding: .55rem .7rem; font: inherit; border: 1px solid var(--muted); border-radius: 8px; }
button { margin-top: 1.2rem; padding: .6rem 1.1rem; font: inherit; font-weight: 600; border: 0; border-radius: 8px; cursor: pointer; }
.primary { background: var(--accent); color: white; }
.secondary { background: transparent; border: 1px solid var(--muted); color: inherit; }
.code { font: 700 2rem/1.2 ui-monospace, monospace; letter-spacing: .12em; text-align: center; margin: .5rem 0 1rem; }
.facts { display: grid; grid-template-columns: auto 1fr; gap: .2rem 1rem; margin: 0 0 1rem; overflow-wrap: anywhere; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; }
.reported { display: block; font-size: .8rem; font-style: italic; }
.notice { padding: .6rem .8rem; border-radius: 8px; background: color-mix(in srgb, var(--accent) 15%, transparent); }
.actions { display: flex; gap: .6rem; }
`;
