import { describe, expect, it } from 'vitest';
import { type BundleFile, downloadName, isBundlePath, mainFileOf } from '../../src/artifacts/bundle.js';

const file = (path: string, mimeType = 'text/plain'): BundleFile => ({
  path,
  mimeType,
  sha256: '0'.repeat(64),
  crc32: 0,
  size: 1,
});

describe('bundle paths', () => {
  it('accept plain relative paths and nothing that could step out or hide', () => {
    for (const good of ['a.txt', 'dir/a.txt', 'a b/ü/東京.md', '.hidden', 'a..b']) expect(isBundlePath(good), good).toBe(true);
    for (const bad of ['', '/etc/passwd', '../a', 'a/../b', './a', 'a/./b', 'a//b', 'a/', 'a\\b', 'a\0b', '..', '.']) {
      expect(isBundlePath(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});

describe('main file', () => {
  it('prefers the shallowest index.html, README.md, SKILL.md, then the first text file', () => {
    expect(mainFileOf([file('a.txt'), file('site/index.html', 'text/html'), file('README.md')])?.path).toBe('README.md');
    expect(mainFileOf([file('x/README.md'), file('x/index.html', 'text/html')])?.path).toBe('x/index.html');
    expect(mainFileOf([file('skill/main.mjs'), file('skill/SKILL.md')])?.path).toBe('skill/SKILL.md');
    expect(mainFileOf([file('a.png', 'image/png'), file('b.csv', 'text/csv')])?.path).toBe('b.csv');
    expect(mainFileOf([file('a.png', 'image/png')])).toBeUndefined();
  });
});

describe('download names', () => {
  it('makes a file name without control characters or separators, with the extension', () => {
    expect(downloadName('Ré"sumé\r\n東京 / a\\b\u0085x', '.html')).toBe('Ré"sumé 東京 _ a_b x.html');
    expect(downloadName('report.zip', '.zip')).toBe('report.zip');
    expect(downloadName('\n\t', '.txt')).toBe('artifact.txt');
    expect(downloadName('The end... ', '.zip')).toBe('The end.zip');
    expect(Array.from(downloadName('a'.repeat(300), '.zip'))).toHaveLength(104);
  });
});
