import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** The app lives under /app/; its routes are the path below that, starting with "/". */
const BASE = '/app';

function currentRoute(): string {
  const below = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) : '/';
  return below === '' ? '/' : below;
}

const listeners = new Set<() => void>();

export function navigate(route: string, options: { replace?: boolean } = {}): void {
  const url = `${BASE}${route}`;
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  for (const listener of listeners) listener();
}

window.addEventListener('popstate', () => {
  for (const listener of listeners) listener();
});

/** The current route and its query, re-rendering on every navigation. */
export function useRoute(): { path: string; query: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = () => setTick((tick) => tick + 1);
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, []);
  return { path: currentRoute(), query: new URLSearchParams(window.location.search) };
}

/** Matches "/runs/:id" style patterns; the named parts, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const wanted = pattern.split('/');
  const given = path.split('/');
  if (wanted.length !== given.length) return null;
  const params: Record<string, string> = {};
  for (const [index, part] of wanted.entries()) {
    const value = given[index] as string;
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(value);
    else if (part !== value) return null;
  }
  return params;
}

interface LinkProps {
  href: string;
  children: ComponentChildren;
  class?: string;
  'aria-current'?: 'page' | undefined;
  'aria-label'?: string;
  /** Called once the link has moved the app (a menu folds itself). */
  onNavigate?: () => void;
}

/** An in-app link: a real anchor (so it opens in a new tab), routed without a reload. */
export function Link({ href, children, onNavigate, ...rest }: LinkProps) {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    navigate(href);
    onNavigate?.();
  };
  return (
    <a href={`${BASE}${href}`} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
