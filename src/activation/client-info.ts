import type { FastifyRequest } from 'fastify';
import type { ClientInfo } from './activation.js';

const LABEL_MAX = 100;
const UA_MAX = 512;

/** Shown to a person deciding whether to trust the device: printable text, bounded. */
function clean(text: string, max: number): string {
  return text
    .replace(/\p{Cc}/gu, ' ')
    .trim()
    .slice(0, max);
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
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
  const userAgent = clean(firstHeader(request.headers['user-agent']) ?? '', UA_MAX);
  const label = clean(firstHeader(request.headers['x-client-label']) ?? bodyLabel ?? productOf(userAgent), LABEL_MAX);
  return { label: label || 'Unknown client', userAgent, ip: request.ip };
}
