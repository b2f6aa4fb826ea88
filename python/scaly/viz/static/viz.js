// The recordings browser: lists the recordings, steps through a recording's
// stages (the expression graph, the IR after each pass with its difference
// from the previous stage, the C). Reads /index.json, then each recording
// (/recording?id=...) when it is opened.
"use strict";

const $ = (id) => document.getElementById(id);

function text(tag, content, cls) {
  const el = document.createElement(tag);
  el.textContent = content;
  if (cls) el.className = cls;
  return el;
}

// Line differences are computed by diff.js in a Web Worker (in the page where
// there is none); each request carries an id, answered in order.
let diffWorker = null, diffRequests = 0;
const diffPending = new Map();

function computeDiff(a, b) {
  if (!diffWorker && typeof Worker !== "undefined") {
    try {
      diffWorker = new Worker("/diff.js");
      diffWorker.onmessage = (e) => {
        const resolve = diffPending.get(e.data.id);
        diffPending.delete(e.data.id);
        if (resolve) resolve({ ops: e.data.ops, ms: e.data.ms });
      };
    } catch (e) {
      diffWorker = false;
    }
  }
  if (!diffWorker) {
    const start = performance.now();
    const ops = window.scalyDiff(a, b);
    return Promise.resolve({ ops, ms: performance.now() - start });
  }
  const id = ++diffRequests;
  return new Promise((resolve) => {
    diffPending.set(id, resolve);
    diffWorker.postMessage({ id, a, b });
  });
}

const CONTEXT = 3;
// Rows drawn at once; a button under them draws the next as many.
const DIFF_ROWS = 2000;

// The difference as hunks: changed lines with CONTEXT lines around them, each
// line with its number in the old and the new text. Rows are drawn DIFF_ROWS
// at a time.
function renderDiff(ops, oldText, newText, pre) {
  const x = oldText.split("\n"), y = newText.split("\n");
  const width = String(Math.max(x.length, y.length)).length;
  const rows = []; // [class, old line or -1, new line or -1, sign] or ["hunk", i, j]
  let i = 0, j = 0, added = 0, removed = 0, hunks = 0;
  const n = ops.length;
  for (let k = 0; k < n; k += 2) {
    const kind = ops[k], count = ops[k + 1];
    if (kind === 0) {
      const first = k === 0, last = k + 2 >= n;
      const head = first ? 0 : Math.min(CONTEXT, count);          // after the change before
      const tail = last ? 0 : Math.min(CONTEXT, count - head);     // before the change after
      for (let t = 0; t < head; ++t) rows.push(["context", i + t, j + t, " "]);
      if (!last && (first || count > head + tail)) { rows.push(["hunk", i + count - tail, j + count - tail]); ++hunks; }
      for (let t = count - tail; t < count; ++t) rows.push(["context", i + t, j + t, " "]);
      i += count; j += count;
    } else {
      if (k === 0) { rows.push(["hunk", i, j]); ++hunks; }
      for (let t = 0; t < count; ++t) {
        if (kind === 1) { rows.push(["removed", i, -1, "-"]); ++i; ++removed; }
        else { rows.push(["added", -1, j, "+"]); ++j; ++added; }
      }
    }
  }
  const num = (v) => (v < 0 ? "" : String(v + 1)).padStart(width);
  let drawn = 0;
  const more = document.createElement("button");
  more.className = "more";
  const draw = () => {
    const frag = document.createDocumentFragment();
    const end = Math.min(rows.length, drawn + DIFF_ROWS);
    for (; drawn < end; ++drawn) {
      const [cls, a, b, sign] = rows[drawn];
      if (cls === "hunk") { frag.appendChild(text("div", `@@ -${a + 1} +${b + 1} @@`, "hunk")); continue; }
      const div = document.createElement("div");
      div.className = cls;
      const ln = document.createElement("span");
      ln.className = "ln";
      ln.textContent = `${num(a)} ${num(b)} `;
      div.appendChild(ln);
      div.appendChild(document.createTextNode(`${sign} ${cls === "added" ? y[b] : x[a]}`));
      frag.appendChild(div);
    }
    pre.appendChild(frag);
    if (drawn < rows.length) {
      more.textContent = `show ${Math.min(DIFF_ROWS, rows.length - drawn)} more of ${rows.length - drawn} lines`;
      pre.after(more);
    } else more.remove();
  };
  more.addEventListener("click", draw);
  draw();
  return { added, removed, hunks, rows: rows.length };
}

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  return el;
}

// The word an enum attribute names: "#expr<math_fn sin>" -> "sin".
function enumWord(text) {
  const m = /^#\w+<\w+ (\w+)>$/.exec(text || "");
  return m ? m[1] : null;
}

function nodeLabel(node) {
  const attrs = node.attrs || {};
  const word = enumWord(attrs.fn) || enumWord(attrs.kind) || enumWord(attrs.predicate);
  const op = node.op.replace(/^expr\./, "") + (word ? ` ${word}` : "");
  const shape = node.shape && node.shape.length ? `(${node.shape.join(",")})` : "";
  return `${op}${node.name ? " " + node.name : ""}${node.callee ? " @" + node.callee : ""}` +
    `${node.derivative ? " → @" + node.derivative : ""} ${shape}`;
}

// A graph with more nodes than this is drawn as blocks of consecutive nodes
// (in trace order), each one node that expands on click: ELK lays out a few
// hundred nodes in well under a second, ten thousand not in minutes.
const MAX_DRAWN = 300;

function blocked(fn) {
  if (fn.nodes.length <= MAX_DRAWN) return fn;
  const size = Math.max(100, Math.ceil(fn.nodes.length / 40));
  const blockOf = new Map();
  const blocks = [];
  fn.nodes.forEach((n, k) => {
    const b = Math.floor(k / size);
    blockOf.set(n.id, b);
    if (!blocks[b]) blocks[b] = [];
    blocks[b].push(n);
  });
  const nodes = blocks.map((members, b) => ({
    id: b, op: `block`, name: `${members[0].id}-${members[members.length - 1].id}`,
    shape: [members.length], dtype: null, file: null, line: null,
    sub: { function: `${fn.function} nodes ${members[0].id}-${members[members.length - 1].id}`,
           nodes: members, edges: fn.edges.filter(([a, c]) => blockOf.get(a) === b && blockOf.get(c) === b) } }));
  const seen = new Set();
  const edges = [];
  for (const [a, c] of fn.edges) {
    const key = `${blockOf.get(a)}-${blockOf.get(c)}`;
    if (blockOf.get(a) !== blockOf.get(c) && !seen.has(key)) { seen.add(key); edges.push([blockOf.get(a), blockOf.get(c)]); }
  }
  return { function: fn.function, nodes, edges, blocked: true };
}

// Lays `fn` out with ELK (layered, top to bottom) and draws it as SVG. A call,
// map or scan is one node, and so is a block of a large graph; a click on it
// draws its callee or its nodes below (and again hides them).
async function drawGraph(fn, byName, container) {
  fn = blocked(fn);
  // Node ids index the drawn nodes (a block's members keep their own ids).
  const index = new Map(fn.nodes.map((n, k) => [n.id, k]));
  fn = { ...fn, edges: fn.edges.filter(([a, b]) => index.has(a) && index.has(b)) };
  const elk = new ELK();
  const children = fn.nodes.map((n) => ({
    id: `n${n.id}`, width: 8 + 7 * nodeLabel(n).length, height: 20 }));
  const edges = fn.edges.map(([a, b], k) => ({ id: `e${k}`, sources: [`n${a}`], targets: [`n${b}`] }));
  const layout = await elk.layout({
    id: "root", children, edges,
    layoutOptions: { "elk.algorithm": "layered", "elk.direction": "DOWN",
                     "elk.spacing.nodeNode": "12", "elk.layered.spacing.nodeNodeBetweenLayers": "18" } });
  const drawing = svg("svg", { class: "graph", width: layout.width + 20, height: layout.height + 20,
                               "data-function": fn.function });
  const root = svg("g", { transform: "translate(10,10)" });
  drawing.appendChild(root);
  for (const e of layout.edges || [])
    for (const sec of e.sections || []) {
      const pts = [sec.startPoint, ...(sec.bendPoints || []), sec.endPoint];
      root.appendChild(svg("path", { class: "edge", d: "M" + pts.map((p) => `${p.x},${p.y}`).join(" L") }));
    }
  const expansions = document.createElement("div");
  for (const [k, c] of layout.children.entries()) {
    const node = fn.nodes[k];
    // A jvp or vjp opens the function scaly-differentiate made for it.
    const callee = node.sub || (node.derivative && byName[node.derivative]) ||
      (node.callee && byName[node.callee]);
    const g = svg("g", { class: "node" + (callee ? " collapsed" : "") + (node.op === "input" ? " input" : "") +
                         (node.derivative ? " derivative" : ""),
                         transform: `translate(${c.x},${c.y})`, "data-id": node.id, "data-op": node.op });
    const title = svg("title");
    title.textContent = `${node.op} ${node.dtype ?? ""} (${(node.shape || []).join(", ")})` +
      Object.entries(node.attrs || {}).map(([k, v]) => `\n${k} = ${v}`).join("") +
      (node.file ? `\n${node.file}:${node.line}` : "");
    g.appendChild(title);
    g.appendChild(svg("rect", { width: c.width, height: c.height, rx: 3 }));
    const label = svg("text", { x: 4, y: 14 });
    label.textContent = nodeLabel(node);
    g.appendChild(label);
    if (node.file) { g.dataset.file = node.file; g.dataset.line = node.line; }
    if (!callee && node.file) g.addEventListener("click", () => showOrigin(node.file, node.line, g, node.op));
    if (callee) {
      let shown = null;
      g.addEventListener("click", async () => {
        if (shown) { shown.remove(); shown = null; return; }
        shown = document.createElement("div");
        shown.className = "expansion";
        shown.appendChild(text("h4", (node.derivative ? `derivative of @${node.callee}: ` : "") +
          `${node.sub ? "" : "@"}${callee.function} (${callee.nodes.length} nodes)`));
        expansions.appendChild(shown);
        await drawGraph(callee, byName, shown);
      });
    }
    root.appendChild(g);
  }
  container.appendChild(drawing);
  container.appendChild(expansions);
}

// Where a Python line went. Each IR stage's ops carrying the line's location
// (file:line:col at the end of an op's line) are grouped into runs: ops of the
// line in a row, an op of another location ending a run, and a run whose op
// sequence repeats split into its repetitions. A loop in Python unrolled into
// the trace gives one run per iteration, so the panel shows one iteration at
// a time (‹ › step through them). The last stage is EmitC,
// which the C printer prints one op to one statement: the C the line became.
const stageLines = new WeakMap();
const LOCATED = /\S+:\d+:\d+\)?\s*$/;

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// A run of one line's ops can hold several iterations (a loop body written on
// one line): split it where its op sequence repeats. The period is the
// smallest p whose chunks, counted back from the run's end, repeat the last
// chunk at least twice and cover half the run; what is left before them (a
// first iteration with its constants) is one more iteration.
function splitIterations(run, keyOf) {
  const keys = run.map(keyOf), n = keys.length;
  for (let p = 1; 2 * p <= n; ++p) {
    let chunks = 1;
    while ((chunks + 1) * p <= n) {
      const start = n - (chunks + 1) * p;
      let same = true;
      for (let t = 0; t < p && same; ++t) same = keys[start + t] === keys[n - p + t];
      if (!same) break;
      ++chunks;
    }
    if (chunks < 2 || 2 * chunks * p < n) continue;
    const out = [];
    const rest = n - chunks * p;
    if (rest) out.push(run.slice(0, rest));
    for (let c = 0; c < chunks; ++c) out.push(run.slice(rest + c * p, rest + (c + 1) * p));
    return out;
  }
  return [run];
}

const opKey = (line) => { const m = /^\s*(?:[%\w#:, ]+ = )?"?([\w.]+)/.exec(line); return m ? m[1] : line; };

function runsOf(stage, where) {
  let lines = stageLines.get(stage);
  if (!lines) { lines = stage.text.split("\n"); stageLines.set(stage, lines); }
  const pattern = new RegExp(`${escapeRegExp(where)}:\\d+\\)?\\s*$`);
  const runs = [];
  let run = null;
  for (const line of lines) {
    if (line.startsWith("#")) continue;
    if (pattern.test(line)) {
      if (!run) { run = []; runs.push(run); }
      run.push(line);
    } else if (LOCATED.test(line)) run = null;
  }
  return runs.flatMap((r) => splitIterations(r, opKey));
}

// Runs of the drawn graph's nodes from one line (in trace order).
function nodeRuns(file, line) {
  const runs = [];
  let run = null;
  for (const g of document.querySelectorAll(".graphs > svg.graph g.node")) {
    if (g.dataset.file === file && g.dataset.line === String(line)) {
      if (!run) { run = []; runs.push(run); }
      run.push(g);
    } else if (g.dataset.file) run = null;
  }
  return runs.flatMap((r) => splitIterations(r, (g) => g.dataset.op));
}

function sourceLine(file, line) {
  const step = window.currentGraphStep;
  const src = step && (step.sources || []).find((s) => s.file === file);
  return src && line >= src.first && line < src.first + src.lines.length ? src.lines[line - src.first] : null;
}

// The panel goes beside what was clicked: level with it, right of a node, or
// right of the graph for a source line (so the graph stays clickable).
function placeBeside(panel, anchor) {
  const view = $("view");
  const a = anchor.getBoundingClientRect(), v = view.getBoundingClientRect();
  const graph = document.querySelector(".graphs > svg.graph");
  const right = anchor.closest("#source") && graph ? Math.max(a.right, graph.getBoundingClientRect().right) : a.right;
  panel.style.top = `${Math.max(0, a.top - v.top + view.scrollTop)}px`;
  panel.style.left = `${Math.max(0, Math.min(right - v.left + 12, v.width - 460))}px`;
}

function showOrigin(file, line, anchor, op, iteration = 0) {
  const panel = $("origin");
  panel.replaceChildren();
  panel.hidden = false;
  const where = `${file}:${line}`;
  document.querySelectorAll("svg.graph g.node.hl").forEach((g) => g.classList.remove("hl"));
  document.querySelectorAll("#source div.hl").forEach((d) => d.classList.remove("hl"));
  for (const row of document.querySelectorAll("#source div[data-line]"))
    if (row.dataset.file === file && row.dataset.line === String(line)) row.classList.add("hl");
  const close = text("button", "×", "close");
  close.addEventListener("click", () => { panel.hidden = true; });
  panel.appendChild(close);
  panel.appendChild(text("h4", `${op ? op + " from " : ""}${where}`));
  const code = sourceLine(file, line);
  if (code !== null) panel.appendChild(text("pre", code.trim(), "py-line"));
  const rec = window.currentRecording;
  const stages = rec ? rec.steps.filter((st) => st.kind === "ir") : [];
  const graphRuns = nodeRuns(file, line);
  const perStage = stages.map((st) => runsOf(st, where));
  // Iterations as the trace has them; a stage that split or merged them shows
  // its own count.
  const count = graphRuns.length || Math.max(1, ...perStage.map((r) => r.length));
  const k = Math.min(Math.max(0, iteration), count - 1);
  (graphRuns[Math.min(k, graphRuns.length - 1)] || []).forEach((g) => g.classList.add("hl"));
  if (count > 1) {
    const nav = document.createElement("div");
    nav.className = "iteration";
    const prev = text("button", "‹", "prev"), next = text("button", "›", "next");
    prev.disabled = k === 0; next.disabled = k === count - 1;
    prev.addEventListener("click", () => showOrigin(file, line, anchor, op, k - 1));
    next.addEventListener("click", () => showOrigin(file, line, anchor, op, k + 1));
    nav.append(prev, text("span", ` iteration ${k + 1} of ${count} `), next);
    panel.appendChild(nav);
  }
  const last = stages.length - 1;
  stages.forEach((st, s) => {
    const runs = perStage[s];
    const r = Math.min(k, runs.length - 1);
    const run = runs[r] || [];
    const details = document.createElement("details");
    details.className = "stage-ops";
    details.dataset.stage = st.name;
    details.dataset.ops = run.length;
    details.dataset.runs = runs.length;
    if (s === last) details.open = true;
    details.appendChild(text("summary", `${s === last ? "C (" + st.name + ", printed one to one)" : st.name}: ` +
      (runs.length ? `${run.length} op${run.length === 1 ? "" : "s"}` +
        (runs.length > 1 ? ` (run ${r + 1} of ${runs.length})` : "")
        : "none (folded or merged away)")));
    if (run.length) details.appendChild(text("pre", run.join("\n"), s === last ? "origin-ops" : "stage-run"));
    panel.appendChild(details);
  });
  const lines = cLinesOf(rec, file, line);
  if (lines) {
    const details = document.createElement("details");
    details.className = "c-lines";
    details.dataset.count = lines.length;
    details.open = true;
    details.appendChild(text("summary", `C lines: ${lines.length}` +
      (lines.length > MAX_C_LINES ? ` (the first ${MAX_C_LINES} shown)` : "")));
    details.appendChild(text("pre", lines.slice(0, MAX_C_LINES).map(([n, code]) =>
      `${String(n).padStart(5)}  ${code.trim()}`).join("\n"), "c-lines"));
    panel.appendChild(details);
  }
  if (anchor) placeBeside(panel, anchor);
}

// The C statements whose ops came from file:line, as [line number, text]
// pairs, from the printer's records (the C step's origins); null when the
// recording has none (no C, or recorded before they existed).
const MAX_C_LINES = 200;
function cLinesOf(rec, file, line) {
  const c = rec && rec.steps.find((st) => st.kind === "c");
  if (!c || !c.origins) return null;
  const source = c.source.split("\n");
  return c.origins.filter(([, from]) => from.some(([f, l]) => f === file && l === line))
    .map(([n]) => [n, source[n - 1] ?? ""]);
}

// The Python source the graph came from; each line that has nodes is clickable.
function showSource(step, container) {
  const sources = step.sources || [];
  if (!sources.length) return null;
  const located = new Set();
  for (const f of step.functions) for (const n of f.nodes) if (n.file) located.add(`${n.file}:${n.line}`);
  const panel = document.createElement("div");
  panel.id = "source";
  for (const src of sources) {
    panel.appendChild(text("h4", src.file.split("/").pop(), "source-file"));
    const pre = document.createElement("pre");
    src.lines.forEach((code, k) => {
      const line = src.first + k;
      const row = text("div", `${String(line).padStart(4)}  ${code}`);
      row.dataset.line = line;
      row.dataset.file = src.file;
      if (located.has(`${src.file}:${line}`)) {
        row.className = "located";
        row.addEventListener("click", () => showOrigin(src.file, line, row, null));
      }
      pre.appendChild(row);
    });
    panel.appendChild(pre);
  }
  container.appendChild(panel);
  return panel;
}

async function showGraph(step, view) {
  if (step.error) view.appendChild(text("p", step.error, "error"));
  if (!step.functions.length) return;
  const byName = Object.fromEntries(step.functions.map((f) => [f.function, f]));
  const top = step.functions[0];
  view.appendChild(text("h3", `${top.function}: ${top.nodes.length} nodes, ${top.edges.length} edges` +
    (top.nodes.length > MAX_DRAWN ? " (drawn as blocks of consecutive nodes; click one to open it)" : "")));
  const derived = step.functions.filter((f) => f.derived);
  if (derived.length)
    view.appendChild(text("p", `Derivatives drawn from their jvp/vjp nodes (made by scaly-differentiate): ` +
      derived.map((f) => `@${f.function}`).join(", "), "derived"));
  if (top.derivative_error)
    view.appendChild(text("p", `The derivatives could not be drawn: ${top.derivative_error}`, "error"));
  if (typeof ELK === "undefined") {
    view.appendChild(text("p", "The layout engine (elk.js) is not built: run scripts/setup.sh.", "error"));
    return;
  }
  window.currentGraphStep = step;
  const origin = document.createElement("div");
  origin.id = "origin";
  origin.hidden = true;
  view.appendChild(origin);
  // The Python source beside the graph.
  const row = document.createElement("div");
  row.className = "graph-row";
  showSource(step, row);
  const graphs = document.createElement("div");
  graphs.className = "graphs";
  row.appendChild(graphs);
  view.appendChild(row);
  await drawGraph(top, byName, graphs);
}

// C with keywords, comments, numbers and preprocessor lines marked.
function highlightC(source) {
  const pre = document.createElement("pre");
  pre.className = "c-source";
  const token = /(\/\*[\s\S]*?\*\/|\/\/[^\n]*)|(^[ \t]*#[^\n]*)|\b(int|double|float|long|void|const|static|inline|return|for|if|else|typedef|struct|char|unsigned|sizeof|extern|uint8_t|int32_t|int64_t)\b|\b(\d+(?:\.\d+)?(?:e[-+]?\d+)?f?)\b/gm;
  let last = 0, m;
  while ((m = token.exec(source))) {
    pre.appendChild(document.createTextNode(source.slice(last, m.index)));
    const cls = m[1] ? "cm" : m[2] ? "pp" : m[3] ? "kw" : "num";
    pre.appendChild(text("span", m[0], cls));
    last = token.lastIndex;
  }
  pre.appendChild(document.createTextNode(source.slice(last)));
  return pre;
}

async function showIR(rec, index, view) {
  const step = rec.steps[index];
  let previous = null;
  for (let k = index - 1; k >= 0; --k)
    if (rec.steps[k].kind === "ir") { previous = rec.steps[k]; break; }
  view.appendChild(text("h3", `IR after ${step.name}` +
    (typeof step.seconds === "number" && step.name !== "input" ? ` (${ms(step.seconds)})` : "")));
  const ir = text("pre", step.text, "ir");
  if (!previous) { view.appendChild(ir); return; }
  // The difference first: it is what the pass did. The whole IR follows,
  // folded (a large one is slow to lay out, and is laid out only when opened).
  const heading = text("h3", `Difference from ${previous.name}`);
  const pre = document.createElement("pre");
  pre.className = "diff pending";
  pre.textContent = "(comparing…)";
  view.appendChild(heading);
  view.appendChild(pre);
  const whole = document.createElement("details");
  whole.className = "ir";
  whole.appendChild(text("summary", `The IR (${step.text.split("\n").length} lines)`));
  whole.appendChild(ir);
  view.appendChild(whole);
  const start = performance.now();
  const result = step.changed === false || previous.text === step.text ? null
    : await computeDiff(previous.text, step.text);
  if (!pre.isConnected) return; // another step was opened meanwhile
  pre.replaceChildren();
  if (!result) { pre.textContent = "(no change)"; pre.className = "diff"; return; }
  const counts = renderDiff(result.ops, previous.text, step.text, pre);
  pre.className = "diff";
  pre.dataset.ms = String(Math.round(performance.now() - start));
  pre.dataset.diffMs = String(Math.round(result.ms));
  pre.dataset.rows = String(counts.rows);
  heading.textContent += `: +${counts.added} −${counts.removed} lines in ${counts.hunks} ` +
    `hunk${counts.hunks === 1 ? "" : "s"}`;
}

function showStep(rec, index) {
  const view = $("view");
  view.replaceChildren();
  document.querySelectorAll("#steps li").forEach((li) =>
    li.classList.toggle("selected", li.dataset.step === String(index)));
  const step = rec.steps[index];
  if (step.kind === "graph") showGraph(step, view);
  else if (step.kind === "ir") showIR(rec, index, view);
  else if (step.kind === "c") {
    view.appendChild(text("h3", "C source"));
    view.appendChild(highlightC(step.source));
    view.appendChild(text("h3", "Header"));
    view.appendChild(text("pre", step.header, "c-header"));
  }
}

function ms(seconds) {
  return seconds >= 1 ? `${seconds.toFixed(2)} s` : `${(seconds * 1e3).toFixed(seconds < 0.01 ? 2 : 1)} ms`;
}

// The passes' wall time at a glance: the total and the slowest pass.
function timingSummary(rec) {
  const t = rec.passes;
  if (!t) return null;
  const share = t.total > 0 ? Math.round((100 * t.slowest_seconds) / t.total) : 0;
  const p = text("p", `Passes: ${ms(t.total)} in all; slowest ${t.slowest} ${ms(t.slowest_seconds)} ` +
    `(${share}%); ${t.unchanged} unchanged pass${t.unchanged === 1 ? "" : "es"} folded`, "timing");
  p.id = "timing";
  return p;
}

// The steps, each pass with its wall time; runs of passes that changed
// nothing are folded into one item that unfolds on click.
function showRecording(rec, li) {
  window.currentRecording = rec;
  document.querySelectorAll("#recordings li").forEach((x) => x.classList.remove("selected"));
  if (li) li.classList.add("selected");
  $("title").textContent = `${rec.name} (${rec.function}, ${rec.mode})`;
  const steps = $("steps");
  steps.replaceChildren();
  $("view").replaceChildren();
  const old = $("timing");
  if (old) old.remove();
  const summary = timingSummary(rec);
  if (summary) steps.before(summary);
  if (rec.error) $("view").appendChild(text("p", rec.error, "error"));
  const slowest = rec.passes ? rec.passes.slowest_seconds : null;
  let fold = null;
  rec.steps.forEach((step, k) => {
    const item = text("li", step.name);
    item.dataset.kind = step.kind;
    item.dataset.step = k;
    item.dataset.name = step.name;
    if (step.kind === "ir" && typeof step.seconds === "number" && step.name !== "input") {
      item.appendChild(text("span", ms(step.seconds), "seconds"));
      if (step.seconds === slowest) item.classList.add("slowest");
    }
    item.addEventListener("click", () => showStep(rec, k));
    if (step.changed === false) {
      item.classList.add("unchanged", "folded");
      if (!fold) {
        fold = text("li", "", "fold");
        fold.members = [];
        const members = fold.members, f = fold;
        fold.addEventListener("click", () => {
          const open = !f.classList.contains("open");
          f.classList.toggle("open", open);
          members.forEach((m) => m.classList.toggle("folded", !open));
          f.firstChild.textContent = `${open ? "▾" : "▸"} ${members.length} unchanged`;
        });
        steps.appendChild(fold);
      }
      fold.members.push(item);
      fold.textContent = `▸ ${fold.members.length} unchanged`;
      fold.title = fold.members.map((m) => m.firstChild.textContent).join(", ");
    } else fold = null;
    steps.appendChild(item);
  });
}

// The list: the index is read first (small), a recording only when it is
// opened; the index is polled for entries appended since, so recordings made
// while the page is open appear without a reload.
const POLL_MS = 2000;
const loaded = new Map(); // id -> recording
let indexCount = 0;

function listEntry(entry) {
  const li = text("li", `${entry.name} · ${entry.mode}${entry.error ? " · error" : ""}`);
  li.dataset.id = entry.id;
  if (entry.passes) li.title = `passes ${ms(entry.passes.total)}, slowest ${entry.passes.slowest}`;
  li.addEventListener("click", async () => {
    let rec = loaded.get(entry.id);
    if (!rec) {
      li.classList.add("loading");
      try {
        const response = await fetch(`/recording?id=${encodeURIComponent(entry.id)}`, { cache: "no-store" });
        rec = await response.json();
      } catch (e) {
        rec = { error: `Could not read the recording: ${e}` };
      }
      li.classList.remove("loading");
      if (!rec.steps) { $("status").textContent = rec.error; $("status").className = "error"; return; }
      loaded.set(entry.id, rec);
    }
    showRecording(rec, li);
  });
  return li;
}

async function poll() {
  let data;
  try {
    const response = await fetch(`/index.json?from=${indexCount}`, { cache: "no-store" });
    data = await response.json();
  } catch (e) {
    data = { error: `Could not read the recordings: ${e}` };
  }
  const status = $("status");
  if (data.error) {
    status.textContent = data.error;
    status.className = "error";
    return;
  }
  const list = $("recordings");
  if (data.count < indexCount) { list.replaceChildren(); indexCount = 0; loaded.clear(); return poll(); }
  for (const entry of data.recordings) list.appendChild(listEntry(entry));
  indexCount = data.count;
  status.className = "";
  status.textContent = data.note || `${data.count} recording${data.count === 1 ? "" : "s"}`;
}

let polling = false;
async function load() {
  await poll();
  setInterval(async () => {
    if (polling) return;
    polling = true;
    try { await poll(); } finally { polling = false; }
  }, POLL_MS);
}

load();
