import { describe, expect, it } from 'vitest';
import { isPublicAddress, publicAddressesOf } from '../../src/sandbox/egress/address-guard.js';

describe('where a webhook may go', () => {
  it.each([
    ['8.8.8.8', true],
    ['93.184.215.14', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
    ['127.0.0.1', false],
    ['127.255.255.254', false],
    ['10.0.0.1', false],
    ['172.31.255.255', false],
    ['192.168.0.1', false],
    ['169.254.169.254', false],
    ['100.100.100.200', false],
    ['0.0.0.0', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['::', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['::127.0.0.1', false],
    ['64:ff9b::a00:1', false],
    ['2002:a00:1::', false],
    ['fd12:3456::1', false],
    ['fe80::1', false],
    ['ff02::1', false],
    ['not an address', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it('refuses a host when any address it resolves to is not public (a rebinding answer included)', async () => {
    const answers = [
      [{ address: '93.184.215.14', family: 4 }],
      [
        { address: '93.184.215.14', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
    ];
    let call = 0;
    const resolve = async () => answers[call++] ?? [];
    await expect(publicAddressesOf('hooks.example', resolve)).resolves.toHaveLength(1);
    await expect(publicAddressesOf('hooks.example', resolve)).rejects.toThrow(
      'hooks.example is not a public address (127.0.0.1)',
    );
    await expect(publicAddressesOf('hooks.example', resolve)).rejects.toThrow('not a public address');
  });
});
