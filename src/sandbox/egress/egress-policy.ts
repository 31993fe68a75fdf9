import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { domainToASCII } from 'node:url';
import { type Config, DEFAULT_NETWORK_BYTES_PER_RUN, DEFAULT_NETWORK_CONNECTION_SECONDS } from '../../config.js';
import { isPublicAddress, literalAddressOf, type Resolve, systemResolve } from './address-guard.js';

/**
 * Where skills may go on the network (DESIGN §14): the hosts the operator allows, on the
 * web's two ports, and only to public addresses unless the operator allows private ones
 * (the switch outbound webhooks use). The egress proxy and web_fetch apply the same one;
 * the caps on bytes and time are the proxy's (web_fetch holds each fetch to its own).
 */
export interface EgressPolicy {
  /** Lower-case host names, or `*.domain` for any name below domain. Empty: nothing. */
  allowedHosts: readonly string[];
  allowPrivateAddresses: boolean;
  /** 80 and 443 from the config; tests add the port of a server of their own. */
  ports: readonly number[];
  /** Bytes one run's connections may carry, both ways and all connections together. */
  bytesPerRun: number;
  /** How long one connection from the sandbox may stay open, however busy. */
  connectionLifetimeMs: number;
}

export const WEB_PORTS: readonly number[] = [80, 443];

export function egressPolicyOf(config: {
  // The caps are optional here only because some callers type the config by the parts they
  // use (open-computer.ts); the server's config always has them.
  executions: Pick<Config['executions'], 'allowedHosts'> &
    Partial<Pick<Config['executions'], 'networkBytesPerRun' | 'networkConnectionSeconds'>>;
  webhooks: Pick<Config['webhooks'], 'allowPrivateAddresses'>;
}): EgressPolicy {
  const { executions } = config;
  return {
    allowedHosts: executions.allowedHosts,
    allowPrivateAddresses: config.webhooks.allowPrivateAddresses,
    ports: WEB_PORTS,
    bytesPerRun: executions.networkBytesPerRun ?? DEFAULT_NETWORK_BYTES_PER_RUN,
    connectionLifetimeMs: (executions.networkConnectionSeconds ?? DEFAULT_NETWORK_CONNECTION_SECONDS) * 1000,
  };
}

/** A destination turned down; the message is one plain line for the person or model that asked. */
export class EgressRefused extends Error {}

/**
 * A host as the allowlist is written: lower case, no trailing dot, IPv6 without brackets,
 * international names in their ASCII form; undefined when it is no host name at all.
 */
export function normalHost(raw: string): string | undefined {
  const literal = literalAddressOf(raw);
  if (literal) return literal.toLowerCase();
  const ascii = domainToASCII(raw.replace(/\.$/, ''));
  return ascii === '' || ascii.length > 253 ? undefined : ascii;
}

/** Whether a normalised host is on the list: by name, or below a `*.domain` entry (the domain itself is not). */
export function hostAllowed(policy: EgressPolicy, host: string): boolean {
  return policy.allowedHosts.some((entry) =>
    entry.startsWith('*.') ? host.endsWith(entry.slice(1)) && host.length > entry.length - 1 : host === entry,
  );
}

function notAllowed(policy: EgressPolicy, host: string): EgressRefused {
  if (policy.allowedHosts.length === 0) {
    return new EgressRefused(
      `${host} cannot be reached: this server gives skills no network access; an operator can allow hosts with SKILL_ALLOWED_HOSTS`,
    );
  }
  return new EgressRefused(
    `${host} is not among the hosts this server allows skills to reach; an operator can add it to SKILL_ALLOWED_HOSTS`,
  );
}

/** The host and port checks that need no name lookup. */
export function checkName(policy: EgressPolicy, host: string, port: number): void {
  if (!hostAllowed(policy, host)) throw notAllowed(policy, host);
  if (!policy.ports.includes(port)) {
    const ports = `${policy.ports.slice(0, -1).join(', ')} and ${policy.ports.at(-1)}`;
    throw new EgressRefused(`${host} was asked for on port ${port}; skills may reach only ports ${ports}`);
  }
}

/**
 * Checks a destination and returns the addresses to connect to. The host is resolved once
 * and every address checked; the caller connects to one of these, never to the name, so a
 * second lookup cannot lead it to a private address (DNS rebinding).
 */
export async function checkDestination(
  policy: EgressPolicy,
  host: string,
  port: number,
  resolve: Resolve = systemResolve,
): Promise<LookupAddress[]> {
  checkName(policy, host, port);
  const literal = literalAddressOf(host);
  let addresses: LookupAddress[];
  try {
    addresses = literal ? [{ address: literal, family: literal.includes(':') ? 6 : 4 }] : await resolve(host);
  } catch {
    throw new EgressRefused(`${host} could not be found: the name does not resolve to any address`);
  }
  if (addresses.length === 0) throw new EgressRefused(`${host} could not be found: the name does not resolve to any address`);
  const privateOne = policy.allowPrivateAddresses ? undefined : addresses.find((entry) => !isPublicAddress(entry.address));
  if (privateOne) {
    throw new EgressRefused(
      `${host} leads to ${privateOne.address}, a private or local address that skills may not reach; only public addresses are allowed`,
    );
  }
  return addresses;
}

/**
 * A `lookup` that answers with addresses already checked, whatever name it is asked about,
 * so the socket connects to exactly what was checked (trying each in turn where the caller
 * asks for all of them).
 */
export function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const [first] = addresses;
    if (options.all) callback(null, [...addresses]);
    else if (first) callback(null, first.address, first.family);
  };
}
