//===- Colouring.cpp - colourings that compress derivative sweeps --------===//
//
// Greedy partial distance-2 colourings of a Jacobian's columns or rows, and
// a star colouring of a Hessian's (Gebremedhin, Manne and Pothen), on
// compressed-column patterns read in place where they can be.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/Sparsity.h"

#include "GroupByKey.h"

#include "llvm/ADT/bit.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <stdexcept>
#include <string>

using namespace mlir;
using namespace scaly::expr;

namespace {

/// A graph's adjacency lists, compressed: vertex v's neighbours are
/// to[start[v] .. start[v + 1]). The arrays are the pattern's own (read in
/// place) or built here (`owned`). An Adjacency is never copied, so its
/// views keep pointing at its own storage.
struct Adjacency {
  ArrayRef<int32_t> start, to;
  std::vector<int32_t> ownedStart, ownedTo;
  Adjacency(ArrayRef<int32_t> start, ArrayRef<int32_t> to) : start(start), to(to) {}
  Adjacency(std::vector<int32_t> s, std::vector<int32_t> t)
      : ownedStart(std::move(s)), ownedTo(std::move(t)) {
    start = ownedStart;
    to = ownedTo;
  }
  Adjacency(const Adjacency &) = delete;
  Adjacency &operator=(const Adjacency &) = delete;
  // A moved vector keeps its buffer, so the views stay valid.
  Adjacency(Adjacency &&) = default;
  ArrayRef<int32_t> operator[](int64_t v) const {
    return ArrayRef<int32_t>(to.data() + start[v], to.data() + start[v + 1]);
  }
};

/// The stored entries of `p` by row: the columns of each row, ascending.
Adjacency columnsByRow(const PatternView &p) {
  std::vector<int32_t> start, to;
  groupByKey(p.nrow, [&](auto emit) {
    for (int64_t c = 0; c < p.ncol; ++c)
      for (int64_t k = p.colind[c]; k < p.colind[c + 1]; ++k)
        emit(p.row[k], c);
  }, start, to);
  return Adjacency(std::move(start), std::move(to));
}

/// The rows of each column, as stored (read in place).
Adjacency rowsByColumn(const PatternView &p) { return Adjacency(p.colind, p.row); }

/// Whether (j, i) is stored for every stored (i, j): a Hessian's pattern
/// after symmetricUnion. Its columns are then its rows too, read in place
/// instead of transposed (at n = 10^5 a transposed copy is megabytes of
/// first-touched memory). Binary searches, so rows out of order within a
/// column can only make it answer false.
bool isSymmetric(const PatternView &p) {
  if (p.nrow != p.ncol)
    return false;
  for (int64_t j = 0; j < p.ncol; ++j)
    for (int64_t k = p.colind[j]; k < p.colind[j + 1]; ++k) {
      int64_t i = p.row[k];
      if (i == j)
        continue;
      if (i < 0 || i >= p.ncol ||
          !std::binary_search(p.row.begin() + p.colind[i], p.row.begin() + p.colind[i + 1], j))
        return false;
    }
  return true;
}

/// The number of colours a colouring uses (its largest plus one).
int64_t colourCount(const Colouring &colour) {
  return colour.empty() ? 0 : int64_t(*std::max_element(colour.begin(), colour.end())) + 1;
}

/// Greedy distance-2 colouring of the "left" vertices of a bipartite graph.
Colouring greedyPartial(const Adjacency &mine, const Adjacency &theirs, int64_t count) {
  Colouring colour(count, -1), forbidden;
  for (int64_t v = 0; v < count; ++v) {
    for (int64_t r : mine[v])
      for (int64_t w : theirs[r])
        if (colour[w] >= 0) {
          if (forbidden.size() <= static_cast<size_t>(colour[w]))
            forbidden.resize(colour[w] + 1, -1);
          forbidden[colour[w]] = v;
        }
    int32_t c = 0;
    while (c < static_cast<int64_t>(forbidden.size()) && forbidden[c] == v)
      ++c;
    colour[v] = c;
  }
  return colour;
}

/// The entry (i, j) of `p` that neither row i nor row j of the compressed
/// product determines (a colouring that is not a star colouring).
[[noreturn]] void undetermined(int64_t i, int64_t j) {
  throw std::logic_error("star colouring does not determine entry (" + std::to_string(i) + ", " +
                         std::to_string(j) + ")");
}

/// readFromRow for a symmetric pattern, in passes over the entries instead
/// of a search of a row per entry (at n = 10^5 that search was a third of
/// the colouring). Row i's columns are column i's rows; walking the rows i
/// in order, entry (i, j) is the next unvisited one of column j (a cursor
/// per column), and the entry walked at m in column i is its mirror (j, i).
/// Empty when a column's rows do not strictly ascend (the walk needs them
/// to; a row listed twice would run a cursor past its column).
std::vector<uint8_t> readFromRowSymmetric(const PatternView &p, const Colouring &colour) {
  int64_t n = p.ncol;
  std::vector<uint8_t> fromRow(p.row.size());
  std::vector<int32_t> count(colourCount(colour));
  std::vector<int32_t> cursor(p.colind.begin(), p.colind.end() - 1);
  Adjacency columnsOf = rowsByColumn(p); // row i's columns: column i's rows
  // Pass 1: entry (i, j) is read from row i when j is the only column of its
  // colour there.
  for (int64_t i = 0; i < n; ++i) {
    ArrayRef<int32_t> columns = columnsOf[i];
    for (int32_t j : columns)
      ++count[colour[j]];
    for (int32_t j : columns) {
      if (cursor[j] >= p.colind[j + 1] || p.row[cursor[j]] != i)
        return {};
      fromRow[cursor[j]++] = count[colour[j]] == 1;
    }
    for (int32_t j : columns)
      count[colour[j]] = 0;
  }
  // Pass 2: otherwise it is read from row j, which needs its mirror (j, i)
  // read from row j.
  std::copy(p.colind.begin(), p.colind.end() - 1, cursor.begin());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t m = p.colind[i]; m < p.colind[i + 1]; ++m) {
      int32_t j = p.row[m];
      if (!fromRow[cursor[j]++] && !fromRow[m])
        undetermined(i, j);
    }
  return fromRow;
}

/// greedyPartial's colouring of the columns, from one pass over the entries
/// and no transpose: each row keeps the set of colours its columns took so
/// far (a bit mask), and column v takes the smallest colour absent from its
/// rows' sets, which are the colours of exactly the columns greedyPartial
/// forbids (those sharing a row with v, coloured before it). Nothing when a
/// column would need colour 32 or more (greedyPartial then colours it).
std::optional<Colouring> colourColumnsByMasks(const PatternView &p) {
  std::vector<uint32_t> taken(p.nrow, 0);
  Colouring colour(p.ncol);
  Adjacency byColumn = rowsByColumn(p);
  for (int64_t v = 0; v < p.ncol; ++v) {
    ArrayRef<int32_t> rows = byColumn[v];
    uint32_t forbidden = 0;
    for (int32_t r : rows)
      forbidden |= taken[r];
    if (forbidden == ~uint32_t(0))
      return std::nullopt;
    int32_t c = llvm::countr_one(forbidden);
    colour[v] = c;
    for (int32_t r : rows)
      taken[r] |= uint32_t(1) << c;
  }
  return colour;
}

/// Per stored entry (i, j) of `p` under a star colouring, whether it is read
/// from row i of the compressed product (starColouring's `fromRow`), with
/// `rowCols` the columns of each row.
std::vector<uint8_t> readFromRow(const PatternView &p, const Adjacency &rowCols,
                                 const Colouring &colour) {
  // Whether exactly one column of `row` carries colour `c`.
  auto uniqueIn = [&](int64_t row, int64_t c) {
    int count = 0;
    for (int64_t j : rowCols[row])
      count += colour[j] == c;
    return count == 1;
  };
  std::vector<uint8_t> fromRow;
  fromRow.reserve(p.row.size());
  for (int64_t j = 0; j < p.ncol; ++j)
    for (int64_t k = p.colind[j]; k < p.colind[j + 1]; ++k) {
      int64_t i = p.row[k];
      if (uniqueIn(i, colour[j]))
        fromRow.push_back(1);
      else if (uniqueIn(j, colour[i]))
        fromRow.push_back(0);
      else
        undetermined(i, j);
    }
  return fromRow;
}

} // namespace

SparsityPattern scaly::expr::symmetricUnion(const PatternView &p) {
  if (p.nrow != p.ncol)
    throw std::invalid_argument("the union with the transpose needs a square pattern");
  for (int64_t c = 0; c < p.ncol; ++c) // set_union reads each column as a sorted set
    for (int64_t k = p.colind[c] + 1; k < p.colind[c + 1]; ++k)
      if (p.row[k] <= p.row[k - 1])
        throw std::invalid_argument("pattern: rows must ascend within each column");
  Adjacency byRow = columnsByRow(p); // column c of the transpose: row c of p, ascending
  SparsityPattern s;
  s.nrow = s.ncol = p.ncol;
  s.colind.assign(p.ncol + 1, 0);
  // Room for the largest union, reserved (untouched) rather than filled.
  s.row.reserve(2 * p.row.size());
  for (int64_t c = 0; c < p.ncol; ++c) {
    ArrayRef<int32_t> transposed = byRow[c];
    std::set_union(p.row.begin() + p.colind[c], p.row.begin() + p.colind[c + 1],
                   transposed.begin(), transposed.end(), std::back_inserter(s.row));
    if (s.row.size() > INT32_MAX)
      throw std::invalid_argument("the union with the transpose has more than 2^31 - 1 entries");
    s.colind[c + 1] = static_cast<int32_t>(s.row.size());
  }
  return s;
}

Colouring scaly::expr::colourColumns(const PatternView &p) {
  if (std::optional<Colouring> colour = colourColumnsByMasks(p))
    return std::move(*colour);
  return greedyPartial(rowsByColumn(p), columnsByRow(p), p.ncol);
}

Colouring scaly::expr::colourRows(const PatternView &p) {
  return greedyPartial(columnsByRow(p), rowsByColumn(p), p.nrow);
}

CompressedJacobian scaly::expr::compressJacobian(const PatternView &p) {
  CompressedJacobian out;
  // Reverse sweeps need at least as many colours as the fullest column has
  // entries: when forward already does as well, rows are not coloured (at
  // n = 10^5 that costs as much as the columns).
  int64_t fullestColumn = 0;
  for (int64_t c = 0; c < p.ncol; ++c)
    fullestColumn = std::max<int64_t>(fullestColumn, p.colind[c + 1] - p.colind[c]);
  // The transpose, built only when the masks cannot colour the columns or
  // the rows are coloured too.
  std::optional<Adjacency> byRow;
  if (std::optional<Colouring> colour = colourColumnsByMasks(p)) {
    out.colour = std::move(*colour);
  } else {
    byRow.emplace(columnsByRow(p));
    out.colour = greedyPartial(rowsByColumn(p), *byRow, p.ncol);
  }
  if (colourCount(out.colour) > fullestColumn) {
    if (!byRow)
      byRow.emplace(columnsByRow(p));
    Colouring rowColour = greedyPartial(*byRow, rowsByColumn(p), p.nrow);
    if (colourCount(rowColour) < colourCount(out.colour)) {
      out.colour = std::move(rowColour);
      out.forward = false;
    }
  }
  return out;
}

void scaly::expr::entryPositions(const PatternView &p, ArrayRef<int32_t> colour, bool forward,
                                 ArrayRef<uint8_t> fromRow, int64_t start,
                                 MutableArrayRef<int64_t> out) {
  if (out.empty())
    return;
  int64_t stop = start + static_cast<int64_t>(out.size());
  // The column of entry `start`: the last column starting at or before it.
  int64_t j = std::upper_bound(p.colind.begin(), p.colind.end(), int32_t(start)) -
              p.colind.begin() - 1;
  int64_t width = forward ? p.nrow : p.ncol;
  for (int64_t k = start; k < stop; ++k) {
    while (p.colind[j + 1] <= k)
      ++j;
    int64_t i = p.row[k];
    bool byColumn = fromRow.empty() ? forward : fromRow[k] != 0;
    out[k - start] = byColumn ? int64_t(colour[j]) * width + i : int64_t(colour[i]) * width + j;
  }
}

Colouring scaly::expr::starColouring(const PatternView &p, std::vector<uint8_t> *fromRow) {
  if (p.nrow != p.ncol)
    throw std::invalid_argument("a star colouring needs a square pattern");
  // The adjacency graph: i ~ j when (i, j) or (j, i) is stored, i != j;
  // a symmetric pattern is its own (its diagonal skipped below).
  int64_t n = p.ncol;
  std::vector<int32_t> start(n + 1, 0), to;
  bool symmetric = isSymmetric(p);
  if (!symmetric) {
    Adjacency byRow = columnsByRow(p);
    to.reserve(2 * p.row.size());
    std::vector<int32_t> merged;
    for (int64_t v = 0; v < n; ++v) {
      ArrayRef<int32_t> cols = byRow[v];
      merged.assign(p.row.begin() + p.colind[v], p.row.begin() + p.colind[v + 1]);
      merged.insert(merged.end(), cols.begin(), cols.end());
      std::sort(merged.begin(), merged.end());
      merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
      for (int32_t w : merged)
        if (w != v)
          to.push_back(w);
      if (to.size() > INT32_MAX)
        throw std::invalid_argument("star colouring: the adjacency graph has more than 2^31 - 1 "
                                    "edges");
      start[v + 1] = static_cast<int32_t>(to.size());
    }
  }
  Adjacency built(std::move(start), std::move(to)), inPlace = rowsByColumn(p);
  const Adjacency &adj = symmetric ? inPlace : built;
  // Gebremedhin, Manne and Pothen (2005), star colouring algorithm 1: a
  // vertex avoids its neighbours' colours, the colours of uncoloured
  // neighbours' neighbours, and, for a coloured neighbour w, the colour of a
  // neighbour x of w when x has a neighbour y != w coloured like w (which
  // would make the path v-w-x-y two-coloured).
  Colouring colour(n, -1), forbidden;
  auto forbid = [&](int32_t c, int32_t v) {
    if (c < 0)
      return;
    if (forbidden.size() <= static_cast<size_t>(c))
      forbidden.resize(c + 1, -1);
    forbidden[c] = v;
  };
  for (int64_t v = 0; v < n; ++v) {
    for (int64_t w : adj[v])
      forbid(colour[w], v);
    for (int64_t w : adj[v]) {
      if (w == v)
        continue;
      if (colour[w] < 0) {
        for (int64_t x : adj[w])
          if (x != v && x != w)
            forbid(colour[x], v);
        continue;
      }
      for (int64_t x : adj[w]) {
        if (x == v || x == w || colour[x] < 0)
          continue;
        // Already forbidden (a neighbour's colour, often, in a band): the
        // search below could only forbid it again.
        if (static_cast<size_t>(colour[x]) < forbidden.size() && forbidden[colour[x]] == v)
          continue;
        for (int64_t y : adj[x])
          if (y != w && y != x && colour[y] == colour[w]) {
            forbid(colour[x], v);
            break;
          }
      }
    }
    int32_t c = 0;
    while (c < static_cast<int64_t>(forbidden.size()) && forbidden[c] == v)
      ++c;
    colour[v] = c;
  }
  if (!fromRow)
    return colour;
  // A symmetric pattern's rows are its columns: walked in place.
  if (symmetric)
    *fromRow = readFromRowSymmetric(p, colour);
  if (!symmetric || (fromRow->empty() && !p.row.empty()))
    *fromRow = readFromRow(p, columnsByRow(p), colour);
  return colour;
}
