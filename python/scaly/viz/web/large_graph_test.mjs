// Opens the graph of a recording with a large flat graph and prints, as JSON,
// how long drawing took, how many nodes were drawn, and how many a click on
// the first block opened:  node large_graph_test.mjs <url>
import { chromium } from "playwright-core";

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true,
                                        args: ["--no-sandbox"] });
const out = {};
try {
  const page = await browser.newPage();
  await page.goto(process.argv[2]);
  await page.waitForSelector("#recordings li");
  await page.click("#recordings li");
  const start = Date.now();
  await page.click('#steps li[data-kind="graph"]');
  await page.waitForSelector("#view .graphs > svg.graph g.node", { timeout: 60000 });
  out.ms = Date.now() - start;
  out.drawn = await page.$$eval("#view .graphs > svg.graph g.node", (g) => g.length);
  out.heading = await page.textContent("#view h3");
  await page.click('#view .graphs > svg.graph g.node[data-op="block"]');
  await page.waitForSelector(".expansion svg.graph g.node");
  out.opened = await page.$$eval(".expansion svg.graph g.node", (g) => g.length);
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
