import { existsSync } from 'node:fs';

/** Debian's chromium, for the web app's e2e tests and its benchmark; undefined where it is missing. */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((file) => existsSync(file));

/**
 * Root in a container: Chromium's own sandbox needs user namespaces it may not get. The
 * machine has no internet: Chromium's background fetches would only fail, many at a time.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-dev-shm-usage',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
