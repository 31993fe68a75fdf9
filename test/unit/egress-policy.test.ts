import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { loadConfig } from '../../src/config-load.js';
import {
  checkDestination,
  type EgressPolicy,
  egressPolicyOf,
  hostAllowed,
  normalHost,
  pinnedLookup,
  WEB_PORTS,
} from '../../src/sandbox/egress/egress-policy.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillet-egress-policy-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const policy = (allowedHosts: string[], allowPrivateAddresses = false): EgressPolicy => ({
  allowedHosts,
  allowPrivateAddresses,
  ports: WEB_PORTS,
  bytesPerRun: 1024 ** 3,
  connectionLifetimeMs: 60_000,
});
/** A resolver that answers from a table and never asks the network. */
const answers = (table: Record<string, string[]>) => async (host: string) => {
  const found = table[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

describe('SKILL_ALLOWED_HOSTS and SKILL_ALLOW_PACKAGE_REGISTRIES', () => {
  it('allow no host by default, and follow the webhooks switch for private addresses', async () => {
    const config = await loadConfig({ DATA_DIR: dir });
    expect(egressPolicyOf(config)).toEqual({
      allowedHosts: [],
      allowPrivateAddresses: false,
      ports: [80, 443],
      bytesPerRun: 2 * 1024 ** 3,
      connectionLifetimeMs: 600_000,
    });
    const open = await loadConfig({ DATA_DIR: dir, WEBHOOK_ALLOW_PRIVATE: 'true' });
    expect(egressPolicyOf(open).allowPrivateAddresses).toBe(true);
  });

  it('cap a run’s traffic and a connection’s life as SKILL_NETWORK_BYTES_PER_RUN and SKILL_NETWORK_CONNECTION_SECONDS say', async () => {
    const config = await loadConfig({
      DATA_DIR: dir,
      SKILL_NETWORK_BYTES_PER_RUN: '1048576',
      SKILL_NETWORK_CONNECTION_SECONDS: '30',
    });
    expect(egressPolicyOf(config)).toMatchObject({ bytesPerRun: 1_048_576, connectionLifetimeMs: 30_000 });
    await expect(loadConfig({ DATA_DIR: dir, SKILL_NETWORK_BYTES_PER_RUN: '10' })).rejects.toThrow(
      /SKILL_NETWORK_BYTES_PER_RUN must be a whole number from 1024/,
    );
    await expect(loadConfig({ DATA_DIR: dir, SKILL_NETWORK_CONNECTION_SECONDS: '0' })).rejects.toThrow(ConfigError);
  });

  it('read host names and wildcards, lower-cased, without duplicates, and add the registries when asked', async () => {
    const config = await loadConfig({
      DATA_DIR: dir,
      SKILL_ALLOWED_HOSTS: ' API.Example.com, *.github.io ,,example.org., 10.0.0.7, pypi.org',
      SKILL_ALLOW_PACKAGE_REGISTRIES: 'yes',
    });
    expect(config.executions.allowedHosts).toEqual([
      'api.example.com',
      '*.github.io',
      'example.org',
      '10.0.0.7',
      'pypi.org',
      'files.pythonhosted.org',
      'registry.npmjs.org',
    ]);
  });

  it.each([
    'https://example.com',
    'example.com:443',
    'example.com/path',
    '*example.com',
    'a.*.example.com',
    '*',
    'exa mple.com',
    '-bad.example.com',
    '[::1]',
    `${'a'.repeat(64)}.example.com`,
    `${'abc.'.repeat(70)}com`,
  ])('refuses %j with a message that says what to write', async (entry) => {
    const loading = loadConfig({ DATA_DIR: dir, SKILL_ALLOWED_HOSTS: `ok.example.com,${entry}` });
    await expect(loading).rejects.toThrow(ConfigError);
    await expect(loading).rejects.toThrow(/SKILL_ALLOWED_HOSTS must be host names separated by commas, such as api.example.com/);
  });

  it('refuses a registries switch that is not true or false', async () => {
    await expect(loadConfig({ DATA_DIR: dir, SKILL_ALLOW_PACKAGE_REGISTRIES: 'pypi' })).rejects.toThrow(
      'SKILL_ALLOW_PACKAGE_REGISTRIES must be true or false (got "pypi")',
    );
  });
});

describe('which hosts a policy allows', () => {
  const list = policy(['api.example.com', '*.github.io', '127.0.0.1']);

  it.each([
    ['api.example.com', true],
    ['example.com', false],
    ['x.api.example.com', false],
    ['evilapi.example.com', false],
    ['pages.github.io', true],
    ['a.b.github.io', true],
    ['github.io', false],
    ['evilgithub.io', false],
    ['github.io.evil.com', false],
    ['127.0.0.1', true],
    ['127.0.0.2', false],
  ])('%s: %s', (host, allowed) => {
    expect(hostAllowed(list, host)).toBe(allowed);
  });

  it('compares hosts in one written form: case, trailing dot, brackets and international names', () => {
    expect(normalHost('API.Example.COM.')).toBe('api.example.com');
    expect(normalHost('[::1]')).toBe('::1');
    expect(normalHost('bücher.example')).toBe('xn--bcher-kva.example');
    expect(normalHost('')).toBeUndefined();
    expect(normalHost('a'.repeat(300))).toBeUndefined();
  });
});

describe('checking a destination', () => {
  const resolve = answers({
    'api.example.com': ['93.184.215.14', '2606:2800:220:1::248'],
    'sneaky.example.com': ['93.184.215.14', '10.0.0.5'],
    'metadata.example.com': ['169.254.169.254'],
    'v6.example.com': ['::ffff:127.0.0.1'],
  });
  const list = policy(['api.example.com', 'sneaky.example.com', 'metadata.example.com', 'v6.example.com', 'missing.example.com']);

  it('returns every checked address of an allowed public host on 80 or 443', async () => {
    await expect(checkDestination(list, 'api.example.com', 443, resolve)).resolves.toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:220:1::248', family: 6 },
    ]);
    await expect(checkDestination(list, 'api.example.com', 80, resolve)).resolves.toHaveLength(2);
  });

  it('refuses a host not on the list, naming the setting', async () => {
    await expect(checkDestination(list, 'example.org', 443, resolve)).rejects.toThrow(
      'example.org is not among the hosts this server allows skills to reach; an operator can add it to SKILL_ALLOWED_HOSTS',
    );
    await expect(checkDestination(policy([]), 'example.org', 443, resolve)).rejects.toThrow(
      'example.org cannot be reached: this server gives skills no network access; an operator can allow hosts with SKILL_ALLOWED_HOSTS',
    );
  });

  it.each([22, 25, 8080, 6379, 0])('refuses port %i', async (port) => {
    await expect(checkDestination(list, 'api.example.com', port, resolve)).rejects.toThrow(
      `api.example.com was asked for on port ${port}; skills may reach only ports 80 and 443`,
    );
  });

  it('refuses a name when any of its addresses is private, link-local (metadata) or loopback', async () => {
    await expect(checkDestination(list, 'sneaky.example.com', 443, resolve)).rejects.toThrow(
      'sneaky.example.com leads to 10.0.0.5, a private or local address that skills may not reach; only public addresses are allowed',
    );
    await expect(checkDestination(list, 'metadata.example.com', 80, resolve)).rejects.toThrow('leads to 169.254.169.254');
    await expect(checkDestination(list, 'v6.example.com', 80, resolve)).rejects.toThrow('leads to ::ffff:127.0.0.1');
  });

  it('refuses listed private addresses unless the operator allows them, without asking a resolver', async () => {
    const never = async () => {
      throw new Error('a literal address is not resolved');
    };
    await expect(checkDestination(policy(['127.0.0.1']), '127.0.0.1', 80, never)).rejects.toThrow(
      '127.0.0.1 leads to 127.0.0.1, a private or local address',
    );
    await expect(checkDestination(policy(['127.0.0.1'], true), '127.0.0.1', 80, never)).resolves.toEqual([
      { address: '127.0.0.1', family: 4 },
    ]);
    await expect(checkDestination(policy(['::1'], true), '::1', 443, never)).resolves.toEqual([{ address: '::1', family: 6 }]);
  });

  it('says so when a name does not resolve', async () => {
    await expect(checkDestination(list, 'missing.example.com', 443, resolve)).rejects.toThrow(
      'missing.example.com could not be found: the name does not resolve to any address',
    );
    await expect(checkDestination(list, 'api.example.com', 443, async () => [])).rejects.toThrow('could not be found');
  });

  it('resolves once: a second, rebinding answer is never asked for', async () => {
    let calls = 0;
    const rebinding = async () => {
      calls += 1;
      return [{ address: calls === 1 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
    };
    const addresses = await checkDestination(list, 'api.example.com', 443, rebinding);
    expect(calls).toBe(1);
    // The socket is handed these very addresses, whatever name it asks about.
    const lookup = pinnedLookup(addresses);
    const one = await new Promise((resolve) => lookup('api.example.com', {}, (_error, address) => resolve(address)));
    const all = await new Promise((resolve) => lookup('other.example', { all: true }, (_error, address) => resolve(address)));
    expect([one, all, calls]).toEqual(['93.184.215.14', [{ address: '93.184.215.14', family: 4 }], 1]);
  });
});
