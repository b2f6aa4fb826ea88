// Opens each pass of a recording whose IR is large and prints, as JSON, how
// long its difference took to show (click to rows drawn) and what it drew:
//   node large_diff_test.mjs <url>
import { chromium } from "playwright-core";

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true,
                                        args: ["--no-sandbox"] });
const out = { passes: [] };
try {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(process.argv[2]);
  await page.waitForSelector("#recordings li");
  await page.click("#recordings li");
  await page.waitForSelector("#steps li[data-kind=ir]");
  await page.$$eval("#steps li.fold", (f) => f.forEach((x) => x.click()));
  const names = await page.$$eval("#steps li[data-kind=ir]", (lis) => lis.map((li) => li.dataset.step));
  for (const step of names.slice(1)) {
    const start = Date.now();
    await page.click(`#steps li[data-step="${step}"]`);
    await page.waitForSelector("pre.diff:not(.pending)", { timeout: 60000 });
    const ms = Date.now() - start;
    const seen = await page.evaluate(() => ({
      name: document.querySelector("#steps li.selected").dataset.name,
      lines: document.querySelector("pre.ir").textContent.split("\n").length,
      rows: document.querySelectorAll("pre.diff > div").length,
      added: document.querySelectorAll("pre.diff > div.added").length,
      removed: document.querySelectorAll("pre.diff > div.removed").length,
      heading: [...document.querySelectorAll("#view h3")].map((h) => h.textContent)[1],
      total: document.querySelector("pre.diff").dataset.ms ?? null,
      diffMs: document.querySelector("pre.diff").dataset.diffMs ?? null,
      allRows: document.querySelector("pre.diff").dataset.rows ?? null,
      text: document.querySelector("pre.diff").textContent.slice(0, 40) }));
    out.passes.push({ ms, ...seen });
    if (!out.more && seen.allRows && +seen.allRows > seen.rows) {
      await page.click("button.more");
      out.more = { before: seen.rows, after: await page.$$eval("pre.diff > div", (d) => d.length) };
    }
  }
  out.errors = errors;
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
