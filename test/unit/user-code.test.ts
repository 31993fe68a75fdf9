import { describe, expect, it } from 'vitest';
import { generateUserCode, normalizeUserCode, USER_CODE_ALPHABET } from '../../src/activation/user-code.js';

describe('user codes', () => {
  it('use 32 unambiguous characters: no I, O, 0 or 1', () => {
    expect(USER_CODE_ALPHABET).toHaveLength(32);
    for (const excluded of ['I', 'O', '0', '1']) expect(USER_CODE_ALPHABET).not.toContain(excluded);
  });

  it('are generated as XXXX-XXXX from the alphabet, and drawn widely', () => {
    const seen = new Set<string>();
    const characters = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const code = generateUserCode();
      expect(code).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
      seen.add(code);
      for (const char of code.replace('-', '')) characters.add(char);
    }
    expect(seen.size).toBe(5000);
    expect(characters.size).toBe(32);
  });

  it.each([
    ['ABCD-EFGH', 'ABCD-EFGH'],
    ['abcd-efgh', 'ABCD-EFGH'],
    ['ABCDEFGH', 'ABCD-EFGH'],
    ['  abcdefgh \n', 'ABCD-EFGH'],
    [' Wx3k-9pQr ', 'WX3K-9PQR'],
  ])('reads %j as %s', (typed, stored) => {
    expect(normalizeUserCode(typed)).toBe(stored);
  });

  it.each(['', 'ABCD-EFG', 'ABCD-EFGHJ', 'ABCD--EFGH', 'AB-CDEFGH', 'ABCD-EFG1', 'OOOO-IIII', 'ABCD EFGH', 'ÄBCD-EFGH'])(
    'refuses %j',
    (typed) => {
      expect(normalizeUserCode(typed)).toBeNull();
    },
  );
});
