// The recordings browser: lists the recordings, steps through a recording's
// stages (the expression graph, the IR after each pass with its difference
// from the previous stage, the C). Reads only /recordings.json.
"use strict";

const $ = (id) => document.getElementById(id);

function text(tag, content, cls) {
  const el = document.createElement(tag);
  el.textContent = content;
  if (cls) el.className = cls;
  return el;
}

// Line difference of two texts (longest common subsequence on lines).
function diffLines(a, b) {
  const x = a.split("\n"), y = b.split("\n");
  const n = x.length, m = y.length;
  if (n * m > 4e6) return null; // too large to compare here
  const L = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; --i)
    for (let j = m - 1; j >= 0; --j)
      L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  const out = [];
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) { out.push([" ", x[i]]); ++i; ++j; }
    else if (j < m && (i === n || L[i][j + 1] >= L[i + 1][j])) { out.push(["+", y[j]]); ++j; }
    else { out.push(["-", x[i]]); ++i; }
  }
  return out;
}

function showGraph(step, view) {
  if (step.error) view.appendChild(text("p", step.error, "error"));
  for (const fn of step.functions) {
    view.appendChild(text("h3", `${fn.function}: ${fn.nodes.length} nodes, ${fn.edges.length} edges`));
    const table = document.createElement("table");
    table.className = "nodes";
    table.appendChild(document.createElement("tr")).append(
      ...["id", "op", "shape", "dtype", "where", "callee"].map((h) => text("th", h)));
    for (const node of fn.nodes) {
      const where = node.file ? `${node.file}:${node.line}` : "";
      table.appendChild(document.createElement("tr")).append(
        ...[node.id, node.op + (node.name ? ` ${node.name}` : ""), `(${node.shape.join(", ")})`,
            node.dtype ?? "", where, node.callee ?? ""].map((v) => text("td", String(v))));
    }
    view.appendChild(table);
  }
}

function showIR(rec, index, view) {
  const step = rec.steps[index];
  let previous = null;
  for (let k = index - 1; k >= 0; --k)
    if (rec.steps[k].kind === "ir") { previous = rec.steps[k]; break; }
  view.appendChild(text("h3", `IR after ${step.name}`));
  view.appendChild(text("pre", step.text, "ir"));
  if (!previous) return;
  view.appendChild(text("h3", `Difference from ${previous.name}`));
  const pre = document.createElement("pre");
  pre.className = "diff";
  const d = diffLines(previous.text, step.text);
  if (!d) { pre.textContent = "(too large to compare)"; }
  else if (d.every(([s]) => s === " ")) { pre.textContent = "(no change)"; }
  else for (const [sign, line] of d) {
    if (sign === " ") continue;
    pre.appendChild(text("div", `${sign} ${line}`, sign === "+" ? "added" : "removed"));
  }
  view.appendChild(pre);
}

function showStep(rec, index) {
  const view = $("view");
  view.replaceChildren();
  document.querySelectorAll("#steps li").forEach((li, k) =>
    li.classList.toggle("selected", k === index));
  const step = rec.steps[index];
  if (step.kind === "graph") showGraph(step, view);
  else if (step.kind === "ir") showIR(rec, index, view);
  else if (step.kind === "c") {
    view.appendChild(text("h3", "C source"));
    view.appendChild(text("pre", step.source, "c-source"));
    view.appendChild(text("h3", "Header"));
    view.appendChild(text("pre", step.header, "c-header"));
  }
}

function showRecording(rec, li) {
  document.querySelectorAll("#recordings li").forEach((x) => x.classList.remove("selected"));
  li.classList.add("selected");
  $("title").textContent = `${rec.name} (${rec.function}, ${rec.mode})`;
  const steps = $("steps");
  steps.replaceChildren();
  $("view").replaceChildren();
  if (rec.error) $("view").appendChild(text("p", rec.error, "error"));
  rec.steps.forEach((step, k) => {
    const item = text("li", step.name);
    item.dataset.kind = step.kind;
    item.addEventListener("click", () => showStep(rec, k));
    steps.appendChild(item);
  });
}

async function load() {
  let data;
  try {
    const response = await fetch("/recordings.json", { cache: "no-store" });
    data = await response.json();
  } catch (e) {
    data = { error: `Could not read the recordings: ${e}` };
  }
  const list = $("recordings");
  list.replaceChildren();
  if (!Array.isArray(data)) {
    $("status").textContent = data.error;
    $("status").className = "error";
    return;
  }
  $("status").textContent = `${data.length} recording${data.length === 1 ? "" : "s"}`;
  data.forEach((rec) => {
    const li = text("li", `${rec.name} · ${rec.mode}${rec.error ? " · error" : ""}`);
    li.addEventListener("click", () => showRecording(rec, li));
    list.appendChild(li);
  });
}

load();
