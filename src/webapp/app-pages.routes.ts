import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { sendPage } from '../http/pages.js';

/**
 * The app's pages may load only their own scripts and styles, talk only to this origin
 * (and its WebSocket), and show artifacts only in frames of this origin, which the
 * artifact routes serve under a `sandbox` policy of their own.
 */
export function appPageHeaders(publicUrl: string): Record<string, string> {
  const socketOrigin = new URL(publicUrl).origin.replace(/^http/, 'ws');
  return {
    'content-security-policy': [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data: blob:",
      `connect-src 'self' ${socketOrigin}`,
      "frame-src 'self'",
      "worker-src 'self'",
      "manifest-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ].join('; '),
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  };
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Skillet</title></head>
<body><h1>The web app is not built</h1><p>Run <code>npm run build</code>, then reload this page.</p></body></html>`;

/** `/` and `/app/`: the single-page app, its hashed assets cached for good, its shell never. */
export function appPageRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const root = ctx.config.webAppDir;
    const headers = appPageHeaders(ctx.config.publicUrl);
    const built = existsSync(path.join(root, 'index.html'));
    const config = { auth: 'public' as const, rateLimit: 'static-asset' as const };

    app.get('/', { config, schema: { hide: true } }, async (_request, reply) => reply.redirect('/app/'));
    app.get('/app', { config, schema: { hide: true } }, async (_request, reply) => reply.redirect('/app/'));

    if (!built) {
      app.get('/app/*', { config, schema: { hide: true } }, async (_request, reply) => sendPage(reply, 503, NOT_BUILT));
      return;
    }

    // Only the files the build wrote are served; any other path is a screen of the app.
    const files = new Set(
      readdirSync(root, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && !/\.(br|gz)$/.test(entry.name))
        .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/')),
    );
    await app.register(fastifyStatic, {
      root,
      serve: false,
      preCompressed: true,
      cacheControl: false,
      setHeaders: (response, file) => {
        const hashed = path.relative(root, file).startsWith(`assets${path.sep}`);
        response.header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });

    app.get('/app/*', { config, schema: { hide: true } }, async (request, reply) => {
      const wanted = (request.params as { '*': string })['*'];
      reply.headers(headers);
      return reply.sendFile(files.has(wanted) ? wanted : 'index.html', root);
    });
  };
}
