import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { html, pageLayout, raw, type SafeHtml } from '../http/html.js';
import { sendPage } from '../http/pages.js';
import { PROJECT_ROOT } from '../paths.js';
import { renderMarkdown } from './markdown.js';

/** The guide's pages: their address under /docs, and the Markdown they are written in. */
const PAGES = [
  { slug: '', file: 'getting-started.md', label: 'Getting started' },
  { slug: 'writing-skills', file: 'writing-skills.md', label: 'Writing a skill' },
] as const;

export const GUIDE_DIR = path.join(PROJECT_ROOT, 'docs', 'guide');

const PageParams = Type.Object({ '*': Type.String() });

/** Where the guide's examples name the server: replaced by this server's public address. */
const SERVER_PLACEHOLDER = /\{\{SERVER\}\}/g;

function docsNav(current: string): SafeHtml {
  const links = [
    ...PAGES.map((page) => ({ href: page.slug ? `/docs/${page.slug}` : '/docs', label: page.label })),
    { href: '/docs/api/', label: 'API reference' },
    { href: '/app/', label: 'Open the app' },
  ];
  return html`<nav class="doc-nav" aria-label="Docs">${links.map(
    (link) => html`<a href="${link.href}" aria-current="${link.href === current ? 'page' : null}">${link.label}</a>`,
  )}</nav>`;
}

function docPage(title: string, current: string, body: SafeHtml): string {
  return pageLayout(title, html`<div class="doc">${docsNav(current)}${body}</div>`);
}

const NOT_FOUND = docPage(
  'No such page',
  '',
  html`<h1>No such page</h1>
<p>There is no page by that name in the docs. It may have moved, or the address may be mistyped.</p>
<p>Start from <a href="/docs">Getting started</a>, read <a href="/docs/writing-skills">Writing a skill</a>, or look an operation up in the <a href="/docs/api/">API reference</a>.</p>`,
);

/**
 * `/docs`: the guide for a newcomer, rendered once at start from docs/guide/*.md with this
 * server's address in its examples, so they can be copied as they are. The API reference
 * is Swagger UI's, under /docs/api/ (app.ts).
 */
export function docsRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const server = ctx.config.publicUrl.replace(/\/+$/, '');
    const rendered = new Map<string, string>(
      PAGES.map((page) => {
        const source = readFileSync(path.join(GUIDE_DIR, page.file), 'utf8').replace(SERVER_PLACEHOLDER, server);
        const { title, html: body } = renderMarkdown(source);
        const href = page.slug ? `/docs/${page.slug}` : '/docs';
        return [page.slug, docPage(title, href, raw(body))];
      }),
    );
    // Not counted against a rate: each page is a string made at start, as cheap as the app's files.
    const config = { auth: 'public' as const, rateLimit: 'static-asset' as const };
    const route = { config, schema: { hide: true } };
    const answer = (slug: string) => rendered.get(slug.replace(/\/+$/, ''));
    app.get('/docs', route, async (_request, reply) => sendPage(reply, 200, answer('') as string));
    app.get('/docs/*', { config, schema: { hide: true, params: PageParams } }, async (request, reply) => {
      const page = answer(request.params['*']);
      return page ? sendPage(reply, 200, page) : sendPage(reply, 404, NOT_FOUND);
    });
  };
}
