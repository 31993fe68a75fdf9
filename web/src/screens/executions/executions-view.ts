import type { HistoryQuery } from '../../requests/executions';

/** The history's view as the URL keeps it, so a filtered page can be linked and reloaded. */
export type HistoryView = HistoryQuery;

export const DEFAULT_LIMIT = 10;

function count(text: string | null, fallback: number, max: number): number {
  const value = Number.parseInt(text ?? '', 10);
  return Number.isNaN(value) || value < 0 ? fallback : Math.min(value, max);
}

/** A comma-separated filter as the server reads it: trimmed, without empty entries. */
export function normaliseList(text: string): string {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .join(',');
}

export function viewOf(query: URLSearchParams): HistoryView {
  return {
    limit: Math.max(1, count(query.get('limit'), DEFAULT_LIMIT, 100)),
    offset: count(query.get('offset'), 0, 999_999),
    channels: normaliseList(query.get('channels') ?? ''),
    interfaces: normaliseList(query.get('interfaces') ?? ''),
  };
}

/** The query of a view, leaving out what is at its default. */
export function queryOf(view: HistoryView): string {
  const query = new URLSearchParams();
  if (view.limit !== DEFAULT_LIMIT) query.set('limit', String(view.limit));
  if (view.offset > 0) query.set('offset', String(view.offset));
  if (view.channels) query.set('channels', view.channels);
  if (view.interfaces) query.set('interfaces', view.interfaces);
  const text = query.toString();
  return text ? `?${text}` : '';
}
