// Opens the recordings page, prints "ready" once its list is shown, then waits
// (without a reload) for a recording appended meanwhile to appear, opens it,
// and prints what it saw as JSON:  node live_test.mjs <url>
import { chromium } from "playwright-core";

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true,
                                        args: ["--no-sandbox"] });
const out = { requests: [] };
try {
  const page = await browser.newPage();
  page.on("request", (r) => out.requests.push(new URL(r.url()).pathname + new URL(r.url()).search));
  await page.goto(process.argv[2]);
  await page.waitForSelector("#recordings li");
  out.before = await page.$$eval("#recordings li", (lis) => lis.map((li) => li.textContent));
  out.requestsBeforeClick = out.requests.filter((r) => r.startsWith("/recording")).length;
  console.log("ready");
  const start = Date.now();
  await page.waitForFunction((n) => document.querySelectorAll("#recordings li").length > n,
                             out.before.length, { timeout: 30000 });
  out.appearedMs = Date.now() - start;
  out.after = await page.$$eval("#recordings li", (lis) => lis.map((li) => li.textContent));
  out.status = await page.textContent("#status");
  await page.click("#recordings li:last-child");
  await page.waitForSelector("#steps li");
  out.steps = await page.$$eval("#steps li[data-step]", (lis) => lis.length);
  out.title = await page.textContent("#title");
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
