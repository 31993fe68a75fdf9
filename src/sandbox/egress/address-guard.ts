import { type LookupAddress, type LookupAllOptions, lookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may not go unless the operator allows it: anything that is not a public
 * unicast address. Otherwise a workspace could make this server call its own admin ports,
 * the cloud's metadata service or a neighbour on the private network, and read the status.
 */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  // IPv4-compatible and NAT64 forms can smuggle a private IPv4 address.
  ['::', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** Whether an address (IPv4, IPv6 or IPv4-mapped IPv6) is a public one. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  // BlockList checks an IPv4-mapped IPv6 address against the IPv4 rules.
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** A URL's host as an address when it is one (without IPv6 brackets), else undefined. */
export function literalAddressOf(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? undefined : bare;
}

export class AddressRefused extends Error {}

export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) => {
    const options: LookupAllOptions = { all: true, verbatim: true };
    lookup(hostname, options, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

/** The addresses a host stands for, refused when any of them is not public. */
export async function publicAddressesOf(hostname: string, resolve: Resolve = systemResolve): Promise<LookupAddress[]> {
  const literal = literalAddressOf(hostname);
  const addresses = literal ? [{ address: literal, family: isIP(literal) }] : await resolve(hostname);
  const refused = addresses.find((entry) => !isPublicAddress(entry.address));
  if (refused || addresses.length === 0) {
    throw new AddressRefused(`${hostname} is not a public address${refused ? ` (${refused.address})` : ''}`);
  }
  return addresses;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for an outgoing request that resolves the host once and hands the socket only
 * checked addresses, so a name that resolved to a public address when the endpoint was
 * saved cannot be pointed at a private one in time for the delivery (DNS rebinding).
 */
export function guardedLookup(resolve: Resolve = systemResolve) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    publicAddressesOf(hostname, resolve).then(
      (addresses) => {
        const [first] = addresses;
        if (options.all) callback(null, addresses);
        else if (first) callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}
