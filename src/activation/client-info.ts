import type { FastifyRequest } from 'fastify';
import type { ClientInfo } from './activation.js';

/**
 * The label and user agent are whatever the device chose to send, and a person reads them
 * when deciding whether to trust it: both are kept short (in characters as a reader counts
 * them, so an emoji is never cut in half) and cut with an ellipsis rather than refused, so
 * a device with a long user agent can still activate.
 */
const LABEL_MAX = 100;
const UA_MAX = 200;

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
const utf8 = new TextDecoder('utf-8', { fatal: true });
const CONTROLS = /\p{Cc}/gu;
/** Direction marks and overrides, which could make the text read as something it is not. */
const DIRECTION_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;
const ASCII = /^[\x20-\x7e]*$/;

/** At most `max` characters: a longer text keeps `max - 1` of them and an ellipsis. */
function capped(text: string, max: number): string {
  let count = 0;
  let cut = 0;
  for (const { index } of graphemes.segment(text)) {
    if (count === max - 1) cut = index;
    count += 1;
    if (count > max) return `${text.slice(0, cut)}…`;
  }
  return text;
}

/** Shown to a person deciding whether to trust the device: printable text, bounded. */
function clean(text: string, max: number): string {
  return capped(text.replace(CONTROLS, ' ').replace(DIRECTION_CONTROLS, '').trim(), max);
}

/**
 * A header's text. Node reads header bytes as Latin-1, but a client with non-ASCII text to
 * send sends its UTF-8, so bytes that are valid UTF-8 are read as such.
 */
function headerText(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  if (first === undefined || ASCII.test(first)) return first;
  try {
    return utf8.decode(Buffer.from(first, 'latin1'));
  } catch {
    return first;
  }
}

/** The product token of a User-Agent: "skillet-cli/1.2 (linux)" names "skillet-cli". */
function productOf(userAgent: string): string {
  return userAgent.split(/[\s/]/)[0] ?? '';
}

export function clientInfoOf(request: FastifyRequest): ClientInfo {
  const body = request.body;
  const bodyLabel =
    typeof body === 'object' && body !== null && 'client_label' in body && typeof body.client_label === 'string'
      ? body.client_label
      : undefined;
  const userAgent = clean(headerText(request.headers['user-agent']) ?? '', UA_MAX);
  const label = clean(headerText(request.headers['x-client-label']) ?? bodyLabel ?? productOf(userAgent), LABEL_MAX);
  return { label: label || 'Unknown client', userAgent, ip: request.ip };
}
