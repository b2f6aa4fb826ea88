// Drives Debian's chromium (playwright-core, never a downloaded browser)
// against a served recordings page and prints what it saw as JSON:
//   node browser_test.mjs <url> <recording name> <pass name> <screenshot.png>
import { chromium } from "playwright-core";

const [url, name, pass, screenshot] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true,
                                        args: ["--no-sandbox"] });
const out = {};
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForSelector("#recordings li");
  out.list = await page.$$eval("#recordings li", (lis) => lis.map((li) => li.textContent));
  out.status = await page.textContent("#status");
  await page.click(`#recordings li:has-text("${name}")`);
  await page.click('#steps li[data-kind="graph"]');
  await page.waitForSelector("svg.graph g.node");
  out.graphNodes = await page.$$eval("#view .graphs > svg.graph g.node", (gs) => gs.length);
  out.collapsed = await page.$$eval("#view .graphs > svg.graph g.node.collapsed", (gs) => gs.length);
  if (out.collapsed) {
    await page.click("#view .graphs > svg.graph g.node.collapsed");
    await page.waitForSelector(".expansion svg.graph g.node");
    out.expandedNodes = await page.$$eval(".expansion svg.graph g.node", (gs) => gs.length);
  }
  await page.screenshot({ path: screenshot, fullPage: false });
  // A traced op (not an input, not a collapsed call): its line and the C it became.
  await page.click('#view .graphs > svg.graph g.node[data-op="expr.reshape"]');
  await page.waitForSelector("#origin h4");
  out.origin = await page.textContent("#origin");
  // The passes' timing at a glance, and the unchanged passes folded away.
  out.timing = await page.textContent("#timing");
  out.stepTimes = await page.$$eval("#steps li[data-kind=ir] .seconds", (s) => s.map((x) => x.textContent));
  out.slowest = await page.$$eval("#steps li.slowest", (s) => s.map((x) => x.dataset.name));
  out.folded = await page.$$eval("#steps li.folded", (s) => s.map((x) => x.dataset.name));
  out.visibleUnchanged = await page.$$eval("#steps li.unchanged", (s) => s.filter((x) => x.offsetParent !== null).length);
  if (out.folded.length) {
    out.folds = await page.$$eval("#steps li.fold", (f) => f.map((x) => x.textContent));
    await page.$$eval("#steps li.fold", (f) => f.forEach((x) => x.click()));
    out.unfolded = await page.$$eval("#steps li.unchanged", (s) => s.filter((x) => x.offsetParent !== null).length);
    await page.$$eval("#steps li.fold", (f) => f.forEach((x) => x.click()));
  }
  await page.click(`#steps li[data-name="${pass}"]`);
  await page.waitForSelector("pre.ir", { state: "attached" });
  await page.waitForSelector("pre.diff:not(.pending)");
  out.diffRows = await page.$$eval("pre.diff > div", (d) => d.map((x) => [x.className, x.textContent]));
  out.ir = await page.textContent("pre.ir");
  out.diffAdded = await page.$$eval("pre.diff div.added", (d) => d.length);
  out.diffRemoved = await page.$$eval("pre.diff div.removed", (d) => d.length);
  await page.click('#steps li[data-kind="c"]');
  await page.waitForSelector("pre.c-source");
  out.c = await page.textContent("pre.c-source");
  out.highlighted = await page.$$eval("pre.c-source span.kw", (s) => s.length);
  out.errors = errors;
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
