//===- ShapeRules.cpp - shape rules of the structured expression ops -----===//

#include "scaly/Dialect/Expr/ShapeRules.h"

#include <algorithm>

namespace scaly::expr::shape {

std::string str(const Shape &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

int64_t count(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

Shape broadcast(const Shape &a, const Shape &b, std::string &error) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Axis i from the right.
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) {
      error = "shapes " + str(a) + " and " + str(b) +
              " do not broadcast: axes must be equal or 1 (aligned from the right)";
      return {};
    }
    out[rank - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

bool broadcastsTo(const Shape &from, const Shape &to) {
  if (from.size() > to.size())
    return false;
  size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1 && from[i] != to[lead + i])
      return false;
  return true;
}

Shape transpose(const Shape &in, const std::vector<int64_t> &perm, std::string &error) {
  if (perm.size() != in.size()) {
    error = "transpose: permutation of " + std::to_string(perm.size()) + " axes for shape " +
            str(in) + " (expected " + std::to_string(in.size()) + ")";
    return {};
  }
  std::vector<char> seen(in.size(), 0);
  Shape out;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(in.size()) || seen[p]) {
      error = "transpose: axes must be a permutation of 0.." + std::to_string(in.size()) +
              "-1 with each axis once";
      return {};
    }
    seen[p] = 1;
    out.push_back(in[p]);
  }
  return out;
}

Shape slice(const Shape &in, const std::vector<int64_t> &starts,
            const std::vector<int64_t> &steps, const std::vector<int64_t> &sizes,
            std::string &error) {
  if (starts.size() != in.size() || steps.size() != in.size() || sizes.size() != in.size()) {
    error = "slice: needs one start, step and size per axis of " + str(in);
    return {};
  }
  for (size_t d = 0; d < in.size(); ++d) {
    if (steps[d] == 0 || sizes[d] < 0) {
      error = "slice: axis " + std::to_string(d) + " has step 0 or a negative size";
      return {};
    }
    if (sizes[d] == 0)
      continue;
    int64_t last = starts[d] + (sizes[d] - 1) * steps[d];
    if (starts[d] < 0 || starts[d] >= in[d] || last < 0 || last >= in[d]) {
      error = "slice: axis " + std::to_string(d) + " picks indices " + std::to_string(starts[d]) +
              ".." + std::to_string(last) + " outside 0.." + std::to_string(in[d] - 1);
      return {};
    }
  }
  return sizes;
}

Shape reduce(const Shape &in, const std::vector<int64_t> &axes, std::string &error) {
  Shape out;
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] < 0 || axes[i] >= static_cast<int64_t>(in.size()) ||
        (i && axes[i] <= axes[i - 1])) {
      error = "reduce: axes must be sorted, distinct and within 0.." +
              std::to_string(static_cast<int64_t>(in.size()) - 1);
      return {};
    }
  for (size_t d = 0; d < in.size(); ++d)
    if (!std::binary_search(axes.begin(), axes.end(), static_cast<int64_t>(d)))
      out.push_back(in[d]);
  return out;
}

Shape matmul(const Shape &a, const Shape &b, std::string &error) {
  if (a.size() < 2 || a.size() != b.size()) {
    error = "matmul: operands need equal rank >= 2, got " + str(a) + " and " + str(b);
    return {};
  }
  size_t r = a.size();
  if (!std::equal(a.begin(), a.end() - 2, b.begin())) {
    error = "matmul: batch axes of " + str(a) + " and " + str(b) + " differ";
    return {};
  }
  if (a[r - 1] != b[r - 2]) {
    error = "matmul: inner dimensions differ: " + str(a) + " @ " + str(b);
    return {};
  }
  Shape out(a.begin(), a.end() - 1);
  out.push_back(b[r - 1]);
  return out;
}

Shape concat(const std::vector<Shape> &parts, int64_t axis, std::string &error) {
  if (parts.empty()) {
    error = "concat: needs at least one array";
    return {};
  }
  const Shape &first = parts[0];
  if (axis < 0 || axis >= static_cast<int64_t>(first.size())) {
    error = "concat: axis " + std::to_string(axis) + " is out of range for shape " + str(first);
    return {};
  }
  Shape out = first;
  out[axis] = 0;
  for (const Shape &p : parts) {
    bool same = p.size() == first.size();
    for (size_t d = 0; same && d < p.size(); ++d)
      same = static_cast<int64_t>(d) == axis || p[d] == first[d];
    if (!same) {
      error = "concat: shape " + str(p) + " does not match " + str(first) +
              " except along axis " + std::to_string(axis);
      return {};
    }
    out[axis] += p[axis];
  }
  return out;
}

Shape scatter(const Shape &values, const int64_t *positions, size_t count, const Shape &out,
              std::string &error) {
  for (int64_t d : out)
    if (d < 0) {
      error = "scatter: shape " + str(out) + " has a negative dimension";
      return {};
    }
  int64_t n = shape::count(out);
  if (static_cast<int64_t>(count) != shape::count(values)) {
    error = "scatter: " + std::to_string(count) + " positions for " +
            std::to_string(shape::count(values)) + " values";
    return {};
  }
  bool ascending = true;
  for (size_t k = 0; k < count; ++k) {
    if (positions[k] < 0 || positions[k] >= n) {
      error = "scatter: position " + std::to_string(positions[k]) + " is outside the " +
              std::to_string(n) + " elements of " + str(out);
      return {};
    }
    ascending = ascending && (k == 0 || positions[k] > positions[k - 1]);
  }
  if (!ascending) {
    std::vector<int64_t> sorted(positions, positions + count);
    std::sort(sorted.begin(), sorted.end());
    auto twice = std::adjacent_find(sorted.begin(), sorted.end());
    if (twice != sorted.end()) {
      error = "scatter: position " + std::to_string(*twice) +
              " is given twice (each element of the result takes at most one value)";
      return {};
    }
  }
  return out;
}

std::optional<int64_t> contiguousStart(const Shape &in, const Shape &out,
                                       const std::vector<int64_t> &starts,
                                       const std::vector<int64_t> &steps) {
  if (count(out) == 0)
    return 0;
  int64_t d = static_cast<int64_t>(in.size()) - 1;
  // Inner axes taken whole.
  while (d >= 0 && starts[d] == 0 && steps[d] == 1 && out[d] == in[d])
    --d;
  // One axis taken as a run, every outer axis at a single index.
  if (d >= 0 && out[d] != 1 && steps[d] != 1)
    return std::nullopt;
  for (int64_t j = 0; j < d; ++j)
    if (out[j] != 1)
      return std::nullopt;
  int64_t lin = 0;
  for (size_t j = 0; j < in.size(); ++j)
    lin = lin * in[j] + starts[j];
  return lin;
}

} // namespace scaly::expr::shape
