// Opens a recording's graph, clicks the Python source line carrying <marker>,
// steps to the next iteration, then clicks a node, and prints, as JSON, what
// was highlighted and where the panel went:  node source_test.mjs <url> <marker>
import { chromium } from "playwright-core";

const [url, marker] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true,
                                        args: ["--no-sandbox"] });
const out = {};
const panelState = (page) => page.evaluate(() => {
  const panel = document.querySelector("#origin");
  return {
    hidden: panel.hidden,
    heading: panel.querySelector("h4")?.textContent,
    py: panel.querySelector("pre.py-line")?.textContent ?? null,
    iteration: panel.querySelector(".iteration span")?.textContent ?? null,
    stages: [...panel.querySelectorAll("details.stage-ops")].map((d) =>
      [d.dataset.stage, +d.dataset.ops, +d.dataset.runs, d.querySelector("pre")?.textContent ?? ""]),
    highlighted: [...document.querySelectorAll(".graphs > svg.graph g.node.hl")].map((g) => +g.dataset.id),
    sourceHl: [...document.querySelectorAll("#source div.hl")].map((d) => +d.dataset.line),
    cLines: panel.querySelector("pre.c-lines")?.textContent ?? null,
    top: panel.getBoundingClientRect().top, left: panel.getBoundingClientRect().left };
});
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForSelector("#recordings li");
  await page.click("#recordings li");
  await page.click('#steps li[data-kind="graph"]');
  await page.waitForSelector(".graphs > svg.graph g.node");
  out.located = await page.$$eval("#source div.located", (d) => d.map((x) => +x.dataset.line));
  const row = page.locator("#source div.located", { hasText: marker });
  out.rowLine = +(await row.getAttribute("data-line"));
  await row.click();
  // Boxes are measured after the click: clicking scrolls what is below the
  // fold into view (the last loop node is, once the recording has one more stage).
  const rowBox = await row.boundingBox();
  out.first = await panelState(page);
  out.first.rowTop = rowBox.y;
  out.first.sourceRight = rowBox.x + rowBox.width;
  await page.click("#origin button.next");
  out.second = await panelState(page);
  const node = page.locator(`.graphs > svg.graph g.node[data-line="${out.rowLine}"]`).last();
  await node.click();
  const nodeBox = await node.boundingBox();
  out.node = await panelState(page);
  out.node.nodeTop = nodeBox.y;
  out.node.nodeRight = nodeBox.x + nodeBox.width;
  out.errors = errors;
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
