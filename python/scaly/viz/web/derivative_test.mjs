// Opens a recording of a derivative (sc.gradient), expands the call of the
// vjp function, then the vjp node, and prints what each level drew, as JSON:
//   node derivative_test.mjs <url>
import { chromium } from "playwright-core";

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true,
                                        args: ["--no-sandbox"] });
const out = {};
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(process.argv[2]);
  await page.waitForSelector("#recordings li");
  await page.click("#recordings li");
  await page.click('#steps li[data-kind="graph"]');
  await page.waitForSelector("#view .graphs > svg.graph g.node");
  out.derivedNote = await page.textContent("#view p.derived");
  out.top = await page.$$eval("#view .graphs > svg.graph g.node", (g) => g.map((x) => x.textContent));
  await page.click('#view .graphs > svg.graph g.node[data-op="expr.call"]');
  await page.waitForSelector(".expansion svg.graph g.node.derivative");
  out.vjpLabel = await page.textContent(".expansion svg.graph g.node.derivative text");
  await page.click(".expansion svg.graph g.node.derivative");
  await page.waitForSelector(".expansion .expansion svg.graph g.node");
  out.derivativeHeading = await page.textContent(".expansion .expansion h4");
  out.derivativeNodes = await page.$$eval(".expansion .expansion svg.graph g.node",
                                          (g) => g.map((x) => x.dataset.op));
  out.errors = errors;
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
