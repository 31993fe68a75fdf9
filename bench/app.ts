/**
 * The web app's first load and the run screen's time to interactive, in headless Chromium:
 * the compressed bytes of HTML, JS and CSS a cold load of /app/ transfers (target under
 * 100 KB), and the time from navigation to a running run's screen having an enabled Cancel
 * button and its first event shown (target under 1 s). The baseline is the least such a
 * screen can be on this machine: a bare page whose one script fetches one line and shows it
 * beside a button (page-baseline in server.ts). Each round opens a fresh browser context
 * (no cache, no service worker); the medians and their ratio are reported.
 */
import { type Browser, chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.js';
import { json, median, type Server, seedUser, startServer, stop } from './processes.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const SIZE_TARGET_KB = 100;
const TTI_TARGET_MS = 1000;

/** Resolves with performance.now() once the page shows an enabled Cancel and a first logged line. */
const READY_SCRIPT = `new Promise((resolve) => {
  const ready = () => [...document.querySelectorAll('button')].some((b) => b.textContent === 'Cancel' && !b.disabled)
    && document.querySelector('[role="log"] li') && (resolve(performance.now()), true);
  if (!ready()) new MutationObserver((_, watcher) => ready() && watcher.disconnect())
    .observe(document, { subtree: true, childList: true, attributes: true });
})`;

async function timeToInteractive(browser: Browser, url: string, cookie?: { name: string; value: string }): Promise<number> {
  const context = await browser.newContext();
  // The cookie is for the whole origin, as the server sets it (a URL with a path would narrow it).
  if (cookie) await context.addCookies([{ ...cookie, url: new URL(url).origin, httpOnly: true, sameSite: 'Strict' }]);
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'commit' });
  const readyAt = Number(await Promise.race([page.evaluate(READY_SCRIPT), page.waitForTimeout(30_000).then(() => Number.NaN)]));
  if (Number.isNaN(readyAt)) throw new Error(`${url} never became interactive`);
  await context.close();
  return readyAt;
}

/** Bytes on the wire (compressed) of the documents, scripts and stylesheets of a cold load. */
async function firstLoadBytes(browser: Browser, url: string): Promise<number> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const counted = new Set<string>();
  let bytes = 0;
  cdp.on('Network.responseReceived', ({ requestId, type }) => {
    if (type === 'Document' || type === 'Script' || type === 'Stylesheet') counted.add(requestId);
  });
  cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
    if (counted.has(requestId)) bytes += encodedDataLength;
  });
  await page.goto(url, { waitUntil: 'networkidle' });
  await context.close();
  return bytes;
}

/** A ticker run that keeps going for the whole benchmark. */
async function runningTicker(url: string, token: string): Promise<string> {
  const headers = { 'x-auth-token': token };
  const input = '10000 250';
  const created = await json<{ id: string }>(`${url}/api/v1/executions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ skill_slug: 'ticker', input }),
  });
  await json(`${url}/api/v1/executions/${created.id}/events`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ events: [{ type: 'user.message', content: [{ type: 'text', text: input }] }] }),
  });
  return created.id;
}

export async function appFirstLoad(): Promise<void> {
  console.log('\n## Web app: first load and run screen time to interactive (headless Chromium)');
  if (!CHROMIUM) {
    console.log('skipped: no chromium on this machine (apt-get install chromium)');
    return;
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const servers: Server[] = [];
  try {
    const skillet = await startServer('skillet');
    const baseline = await startServer('page-baseline');
    servers.push(skillet, baseline);
    const { token } = await seedUser(skillet.url, 'app-bench@example.test');
    const executionId = await runningTicker(skillet.url, token);
    const runScreen = `${skillet.url}/app/runs/${executionId}`;
    const cookie = { name: 'skillet_session', value: token };

    const bytes = await firstLoadBytes(browser, `${skillet.url}/app/`);
    const ours: number[] = [];
    const theirs: number[] = [];
    // One warm-up each (Chromium's own start-up costs), then alternating rounds.
    await timeToInteractive(browser, runScreen, cookie);
    await timeToInteractive(browser, `${baseline.url}/`);
    for (let round = 0; round < ROUNDS; round++) {
      theirs.push(await timeToInteractive(browser, `${baseline.url}/`));
      ours.push(await timeToInteractive(browser, runScreen, cookie));
    }
    const kb = bytes / 1024;
    const ourMs = median(ours);
    const baselineMs = median(theirs);
    console.log(
      `first load (HTML + JS + CSS, compressed): ${kb.toFixed(1)} KB (target < ${SIZE_TARGET_KB} KB: ${kb < SIZE_TARGET_KB ? 'met' : 'MISSED'})`,
    );
    console.log(
      `run screen time to interactive: ${ourMs.toFixed(0)} ms, bare page ${baselineMs.toFixed(0)} ms, ratio ${(ourMs / baselineMs).toFixed(2)} ` +
        `(target < ${TTI_TARGET_MS} ms: ${ourMs < TTI_TARGET_MS ? 'met' : 'MISSED'}; median of ${ROUNDS} cold loads)`,
    );
  } finally {
    await browser.close();
    for (const server of servers) await stop(server);
  }
}
