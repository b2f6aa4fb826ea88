//===- Digest.cpp - content digest of a traced Function ------------------===//

#include "scaly/Trace/Digest.h"

#include "scaly/Dialect/Expr/ExprDialect.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

#include <array>
#include <cstring>

namespace scaly::trace {
namespace {

/// SHA-256 over a stream written in small pieces: LLVM's SHA256 takes a
/// piece byte by byte, a long one block by block, so pieces are gathered
/// into 64 KiB before hashing (the digest is that of the same stream).
class BufferedSHA256 {
public:
  void update(llvm::ArrayRef<uint8_t> bytes) {
    pending.append(reinterpret_cast<const char *>(bytes.data()), bytes.size());
    if (pending.size() >= (1u << 16))
      flush();
  }
  void update(llvm::StringRef text) { update(llvm::arrayRefFromStringRef(text)); }
  std::array<uint8_t, 32> final() {
    flush();
    return sha.final();
  }

private:
  llvm::SHA256 sha;
  std::string pending;
  void flush() {
    sha.update(llvm::arrayRefFromStringRef(pending));
    pending.clear();
  }
};

class Digester {
public:
  std::string digest(const Function &fn) {
    auto it = memo.find(&fn);
    if (it != memo.end())
      return it->second;
    BufferedSHA256 h;
    auto str = [&](llvm::StringRef s) {
      i64(static_cast<int64_t>(s.size()));
      h.update(s);
    };
    i64Into = &h;
    str("scaly-function-v2");
    str(fn.name);
    for (const auto *ports : {&fn.inputs, &fn.outputs}) {
      i64(static_cast<int64_t>(ports->size()));
      for (const Port &p : *ports) {
        str(p.name);
        shape(p.shape);
        i64(static_cast<int64_t>(p.dtype));
      }
    }
    i64(fn.block);
    // Only the ops the results depend on, values renumbered densely in graph
    // order, so that dead intermediate ops do not change the digest.
    const Graph &g = *fn.graph;
    mlir::Block &traced = g.body();
    llvm::DenseSet<mlir::Operation *> live = g.liveOps(fn.results);
    llvm::DenseMap<mlir::Value, int64_t> number;
    for (mlir::BlockArgument arg : traced.getArguments()) {
      number[arg] = static_cast<int64_t>(number.size());
      str("input");
      i64(g.inputPosition(arg.getArgNumber()));
      type(arg.getType());
    }
    for (mlir::Operation &op : traced) {
      if (!live.contains(&op))
        continue;
      str(op.getName().getStringRef());
      i64(static_cast<int64_t>(op.getNumOperands()));
      for (mlir::Value o : op.getOperands())
        i64(number.lookup(o));
      i64(static_cast<int64_t>(op.getNumResults()));
      for (mlir::Value r : op.getResults()) {
        type(r.getType());
        number[r] = static_cast<int64_t>(number.size());
      }
      // Attributes in name order (inherent ones read from the properties,
      // nothing created in the context); an application's callee by its
      // Function's digest, not its placeholder symbol.
      mlir::NamedAttrList attrs(op.getRawDictionaryAttrs());
      for (mlir::StringAttr name : op.getName().getAttributeNames())
        if (std::optional<mlir::Attribute> value = op.getInherentAttr(name.getValue()))
          if (*value)
            attrs.set(name, *value);
      for (const mlir::NamedAttribute &a : attrs) {
        str(a.getName().getValue());
        if (a.getName() == "callee" && Graph::isApplication(&op)) {
          BufferedSHA256 *saved = i64Into;
          std::string callee = digest(g.callee(&op));
          i64Into = saved;
          str(callee);
        } else {
          attribute(a.getValue());
        }
      }
    }
    i64(static_cast<int64_t>(fn.results.size()));
    for (int32_t r : fn.results)
      i64(number.lookup(g.value(r)));
    auto bytes = h.final();
    std::string hex = llvm::toHex(llvm::ArrayRef<uint8_t>(bytes.data(), bytes.size()), true);
    memo[&fn] = hex;
    return hex;
  }

private:
  llvm::DenseMap<const Function *, std::string> memo;
  // Types and attributes are uniqued: each is printed once, however many
  // ops carry it (a model unrolled 10^4 times has 10^4 copies of each).
  llvm::DenseMap<mlir::Type, std::string> typeText;
  llvm::DenseMap<mlir::Attribute, std::string> attrText;
  BufferedSHA256 *i64Into = nullptr;

  void i64(int64_t v) {
    uint8_t b[8];
    std::memcpy(b, &v, 8);
    i64Into->update(llvm::ArrayRef<uint8_t>(b, 8));
  }
  /// A type as printed (shapes and element types print exactly).
  void type(mlir::Type t) { printed(typeText, t); }
  /// `x` as printed, with its length first; each uniqued type or attribute
  /// is printed once.
  template <typename T> void printed(llvm::DenseMap<T, std::string> &cache, T x) {
    auto [it, fresh] = cache.try_emplace(x);
    std::string &text = it->second;
    if (fresh) {
      llvm::raw_string_ostream os(text);
      x.print(os);
    }
    i64(static_cast<int64_t>(text.size()));
    i64Into->update(text);
  }
  /// An attribute: the raw data of large arrays (printing them costs more
  /// than hashing), anything else as printed.
  void attribute(mlir::Attribute a) {
    if (auto dense = llvm::dyn_cast<mlir::DenseElementsAttr>(a)) {
      type(dense.getType());
      i64(dense.isSplat());
      llvm::ArrayRef<char> raw = dense.getRawData();
      i64(static_cast<int64_t>(raw.size()));
      i64Into->update(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(raw.data()),
                                              raw.size()));
      return;
    }
    if (auto ints = llvm::dyn_cast<mlir::DenseI64ArrayAttr>(a)) {
      i64(-1); // an i64 array, not a shape
      shape(std::vector<int64_t>(ints.asArrayRef().begin(), ints.asArrayRef().end()));
      return;
    }
    printed(attrText, a);
  }
  void shape(const std::vector<int64_t> &s) {
    i64(static_cast<int64_t>(s.size()));
    for (int64_t d : s)
      i64(d);
  }
};

} // namespace

std::string graphDigest(const Function &fn) { return Digester().digest(fn); }

} // namespace scaly::trace
