// Opens a page in headless Chromium through Playwright, clicks its button, and saves a screenshot.
const { chromium } = require('playwright');

(async () => {
  const browser = await chromium.launch();
  const page = await browser.newPage();
  await page.goto(process.argv[2]);
  await page.click('button');
  console.log(`title: ${await page.title()}; heading: ${await page.textContent('#heading')}`);
  await page.screenshot({ path: process.argv[3] });
  await browser.close();
  console.log(`saved ${process.argv[3]}`);
})();
