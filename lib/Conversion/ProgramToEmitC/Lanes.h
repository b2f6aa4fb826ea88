//===- Lanes.h - C for the lane vectors of widened loops -----------*- C++ -*-===//
//
// What a module needs in C for the values of loops scaly-widen-lanes made
// wide: the value types (natural alignment, for registers), the aligned(8),
// may_alias types loads and stores go through, helpers for strided lanes,
// broadcasts and lane-by-lane libm calls, and with vector_libm=glibc the
// declarations of glibc's vector math (libmvec) with the guards that refuse
// a build whose flags do not give the vector ABI those functions use.
//
// With lanes="auto" the IR is widened by 8 and the C reads SCALY_LANES
// instead, a width the preprocessor picks from the target macros (8 with
// AVX-512, 4 with AVX2, else 2); every width divides 8, so a loop whose
// bounds were split for 8 lanes is covered by any of them.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_CONVERSION_PROGRAMTOEMITC_LANES_H
#define SCALY_CONVERSION_PROGRAMTOEMITC_LANES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace scaly::c {

class LaneSupport {
public:
  /// `autoWidth`: print SCALY_LANES for the IR's width; `glibc`: call libmvec.
  LaneSupport(bool autoWidth, bool glibc) : autoWidth(autoWidth), glibc(glibc) {}

  bool isAuto() const { return autoWidth; }
  bool usesGlibc() const { return glibc; }

  /// C type of a lane vector value of `width` elements of `elem`.
  std::string valueType(mlir::Type elem, int64_t width);
  /// The aligned(8), may_alias type lanes are loaded and stored through.
  std::string memoryType(mlir::Type elem, int64_t width);
  /// The width as C text: the number, or SCALY_LANES.
  std::string widthText(int64_t width) const;

  /// Helpers, each returning the function to call.
  std::string stridedLoad(mlir::Type elem, int64_t width);
  std::string stridedStore(mlir::Type elem, int64_t width);
  std::string splat(mlir::Type elem, int64_t width);
  /// C type of a lane mask: what comparing two lane vectors of `elem` gives in
  /// GNU C (an integer vector of the element's width, each lane 0 or -1).
  std::string maskType(mlir::Type elem, int64_t width);
  /// The helper choosing lane by lane: select(mask, a, b), a bitwise blend
  /// (C has no ?: on vector conditions).
  std::string select(mlir::Type elem, int64_t width);
  /// `fn` (a libm name as scaly::expr::cMathName takes it) on every lane:
  /// libmvec's variant where there is one for the width, else lane by lane.
  std::string math(llvm::StringRef fn, mlir::Type elem, int64_t width, unsigned arity);

  /// Whether no lane vector was used (nothing to define).
  bool empty() const { return typedefs.empty(); }
  /// Builds at `b`, as cdecl ops, in the order C needs them: the lane width
  /// macro (lanes=auto), the typedefs, the guards, libmvec's declarations
  /// and, after a blank line, the helper macros, a blank line between two.
  void define(mlir::OpBuilder &b, mlir::Location loc) const;
  /// Adds what `other` registered and this did not, in `other`'s order:
  /// procedures translated apart, merged in procedure order, define the same
  /// as translated one after another.
  void merge(const LaneSupport &other);

private:
  /// `typedef scalar name __attribute__((vector_size(...)[, aligned(A),
  /// may_alias]));`
  struct Typedef {
    mlir::Type scalar;
    int64_t elementBytes, width;
    bool memory; // aligned to one element, may_alias
  };
  /// `#define name(params) body`.
  struct Macro {
    std::string name;
    std::vector<std::string> params;
    std::string body;
  };
  /// A libmvec function: `V symbol(V[, V]);`.
  struct VectorFunction {
    std::string symbol, vectorType;
    unsigned arity;
  };
  /// A helper macro; with lanes=auto and libmvec, first the SCALY_LANES
  /// widths with a libmvec variant, each a declaration and a macro calling
  /// it (`#if SCALY_LANES == 8 ... #elif ... #else`), the macro otherwise.
  struct Helper {
    Macro macro;
    std::vector<std::pair<int64_t, VectorFunction>> byWidth;
  };

  bool autoWidth, glibc;
  std::map<std::string, Typedef> typedefs; // by name
  /// `#if !defined(macro)` / `#error "message"` blocks, as {macro, message}.
  std::set<std::pair<std::string, std::string>> guards;
  /// libmvec declarations and helper macros, each by name, in order of
  /// first use.
  std::vector<std::pair<std::string, VectorFunction>> declarations;
  std::vector<std::pair<std::string, Helper>> helpers;
  std::set<std::string> seen;

  /// Registers `name` with `item` in `list` unless some part has that name.
  template <typename T>
  void add(std::vector<std::pair<std::string, T>> &list, std::string name, T item) {
    if (seen.insert(name).second)
      list.emplace_back(std::move(name), std::move(item));
  }
  void addTypedef(const std::string &name, mlir::Type scalar, int64_t elementBytes,
                  int64_t width, bool memory);
  std::string suffix(mlir::Type elem, int64_t width) const;
  void defineTypedefs(mlir::OpBuilder &b, mlir::Location loc) const;
  /// The helper's macro; with widths of libmvec, the #if chain holding it.
  static void defineHelper(mlir::OpBuilder &b, mlir::Location loc, const Helper &helper);
  /// The lane-by-lane helper macro of `fn`.
  Macro laneByLane(const std::string &name, llvm::StringRef scalarFn, const std::string &vector,
                   int64_t width, unsigned arity) const;
  /// libmvec's symbol for `fn` at a fixed width, or "" when glibc has none;
  /// `isaMacro` gets the target macro its vector ABI needs.
  static std::string mvecSymbol(llvm::StringRef fn, mlir::Type elem, int64_t width,
                                unsigned arity, std::string &isaMacro);
};

} // namespace scaly::c

#endif
