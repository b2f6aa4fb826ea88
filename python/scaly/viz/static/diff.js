// Line difference of two texts: patience diff (lines unique to both sides
// anchor the match, longest increasing run of them), Myers' O(ND) algorithm
// between anchors, common prefixes and suffixes trimmed at every level. Runs
// in a Web Worker (the page posts {id, a, b} and gets {id, ops}) and, where
// there is no worker, in the page (window.scalyDiff).
//
// ops: an Int32Array of (kind, count) pairs in order, kind 0 = same lines,
// 1 = removed (old only), 2 = added (new only).
"use strict";

(function (scope) {
  // A gap no unique line anchors is compared by Myers up to this many edits;
  // past it, the gap is shown as removed then added (exact enough there: the
  // two sides share no unique line at all).
  const MAX_EDITS = 2000;

  function intern(a, b) {
    const ids = new Map();
    const map = (lines) => {
      const out = new Int32Array(lines.length);
      for (let k = 0; k < lines.length; ++k) {
        let id = ids.get(lines[k]);
        if (id === undefined) { id = ids.size; ids.set(lines[k], id); }
        out[k] = id;
      }
      return out;
    };
    return [map(a), map(b), ids.size];
  }

  function diff(aText, bText) {
    const aLines = aText.split("\n"), bLines = bText.split("\n");
    const [a, b, distinct] = intern(aLines, bLines);
    const ops = [];
    const push = (kind, count) => {
      if (count <= 0) return;
      const n = ops.length;
      if (n && ops[n - 2] === kind) ops[n - 1] += count;
      else ops.push(kind, count);
    };
    // Scratch counters by line id, reset after each use.
    const countA = new Int32Array(distinct), countB = new Int32Array(distinct);
    const posA = new Int32Array(distinct), posB = new Int32Array(distinct);

    function myers(a0, a1, b0, b1) {
      const n = a1 - a0, m = b1 - b0, max = Math.min(n + m, MAX_EDITS);
      const off = max + 1;
      let v = new Int32Array(2 * max + 3);
      const trace = [];
      let found = -1;
      for (let d = 0; d <= max && found < 0; ++d) {
        trace.push(v.slice(off - d - 1, off + d + 2));
        for (let k = -d; k <= d; k += 2) {
          let x = (k === -d || (k !== d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1] : v[off + k - 1] + 1;
          let y = x - k;
          while (x < n && y < m && a[a0 + x] === b[b0 + y]) { ++x; ++y; }
          v[off + k] = x;
          if (x >= n && y >= m) { found = d; break; }
        }
      }
      if (found < 0) { push(1, n); push(2, m); return; }
      // Walk the trace back from (n, m), collecting the script in reverse.
      const rev = [];
      let x = n, y = m;
      for (let d = found; d > 0; --d) {
        const t = trace[d], base = d + 1; // t[base + k] = v[k] before step d
        const k = x - y;
        const down = k === -d || (k !== d && t[base + k - 1] < t[base + k + 1]);
        const pk = down ? k + 1 : k - 1;
        const px = t[base + pk], py = px - pk;
        const sx = down ? px : px + 1; // where the snake of step d starts
        rev.push([0, x - sx]);
        rev.push(down ? [2, 1] : [1, 1]);
        x = px; y = py;
      }
      rev.push([0, x]);
      for (let k = rev.length - 1; k >= 0; --k) push(rev[k][0], rev[k][1]);
    }

    function range(a0, a1, b0, b1) {
      let pre = 0;
      while (a0 + pre < a1 && b0 + pre < b1 && a[a0 + pre] === b[b0 + pre]) ++pre;
      let suf = 0;
      while (a1 - suf > a0 + pre && b1 - suf > b0 + pre && a[a1 - 1 - suf] === b[b1 - 1 - suf]) ++suf;
      push(0, pre);
      a0 += pre; b0 += pre; a1 -= suf; b1 -= suf;
      if (a0 === a1 || b0 === b1) { push(1, a1 - a0); push(2, b1 - b0); push(0, suf); return; }
      if (a1 - a0 === 1 || b1 - b0 === 1) { // one line on a side: where the other has it, if at all
        const one = a1 - a0 === 1, line = one ? a[a0] : b[b0];
        let at = -1;
        for (let t = one ? b0 : a0, end = one ? b1 : a1, other = one ? b : a; t < end; ++t)
          if (other[t] === line) { at = t; break; }
        if (at < 0) { push(1, a1 - a0); push(2, b1 - b0); }
        else if (one) { push(2, at - b0); push(0, 1); push(2, b1 - at - 1); }
        else { push(1, at - a0); push(0, 1); push(1, a1 - at - 1); }
        push(0, suf);
        return;
      }
      // Patience: lines that occur once on each side.
      for (let i = a0; i < a1; ++i) { ++countA[a[i]]; posA[a[i]] = i; }
      for (let j = b0; j < b1; ++j) { ++countB[b[j]]; posB[b[j]] = j; }
      const pairs = [];
      let shared = 0; // lines the two sides can have in common, at most
      for (let j = b0; j < b1; ++j) {
        const id = b[j];
        if (countA[id] === 1 && countB[id] === 1) pairs.push(posA[id], j);
        if (countA[id] > 0) { --countA[id]; ++shared; }
      }
      for (let i = a0; i < a1; ++i) countA[a[i]] = 0;
      for (let j = b0; j < b1; ++j) countB[b[j]] = 0;
      // pairs are in b order; the longest run increasing in a (patience sort).
      const np = pairs.length / 2;
      if (np === 0) {
        // Myers needs at least n + m - 2 * shared edits: past its limit, skip it.
        if ((a1 - a0) + (b1 - b0) - 2 * shared > MAX_EDITS) { push(1, a1 - a0); push(2, b1 - b0); }
        else myers(a0, a1, b0, b1);
        push(0, suf);
        return;
      }
      const tails = new Int32Array(np), prev = new Int32Array(np);
      let len = 0;
      for (let p = 0; p < np; ++p) {
        const ai = pairs[2 * p];
        let lo = 0, hi = len;
        while (lo < hi) { const mid = (lo + hi) >> 1; if (pairs[2 * tails[mid]] < ai) lo = mid + 1; else hi = mid; }
        prev[p] = lo > 0 ? tails[lo - 1] : -1;
        tails[lo] = p;
        if (lo === len) ++len;
      }
      const chain = new Int32Array(len);
      for (let p = tails[len - 1], k = len - 1; k >= 0; --k, p = prev[p]) chain[k] = p;
      let ca = a0, cb = b0;
      for (let k = 0; k < len; ++k) {
        const ai = pairs[2 * chain[k]], bj = pairs[2 * chain[k] + 1];
        range(ca, ai, cb, bj);
        push(0, 1);
        ca = ai + 1; cb = bj + 1;
      }
      range(ca, a1, cb, b1);
      push(0, suf);
    }

    range(0, a.length, 0, b.length);
    return Int32Array.from(ops);
  }

  scope.scalyDiff = diff;
  if (typeof WorkerGlobalScope !== "undefined" && scope instanceof WorkerGlobalScope) {
    scope.onmessage = (e) => {
      const start = performance.now();
      const ops = diff(e.data.a, e.data.b);
      scope.postMessage({ id: e.data.id, ops, ms: performance.now() - start }, [ops.buffer]);
    };
  }
})(self);
