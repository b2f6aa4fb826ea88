//===- Digest.cpp - content digest of a traced Function ------------------===//

#include "scaly/Trace/Digest.h"

#include "scaly/Dialect/Expr/ExprDialect.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
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

/// The digest of a Function: SHA-256 over a compact, self-delimiting
/// encoding of its ports and live ops. Integers are LEB128 varints, and each
/// op name, type, attribute name and attribute is written in full the first
/// time and as a back-reference after: a model unrolled 10^4 times carries
/// 10^4 copies of each, and hashing their text every time made SHA-256 most
/// of the digest's cost.
class Digester {
public:
  std::string digest(const Function &fn) {
    auto it = memo.find(&fn);
    if (it != memo.end())
      return it->second;
    // A callee is digested on its own (its own stream and tables).
    Stream saved = std::move(out);
    out = Stream();
    str("scaly-function-v3");
    str(fn.name);
    for (const auto *ports : {&fn.inputs, &fn.outputs}) {
      num(static_cast<int64_t>(ports->size()));
      for (const Port &p : *ports) {
        str(p.name);
        shape(p.shape);
        num(static_cast<int64_t>(p.dtype));
      }
    }
    num(fn.block);
    // Only the ops the results depend on, values renumbered densely in graph
    // order, so that dead intermediate ops do not change the digest.
    const Graph &g = *fn.graph;
    mlir::Block &traced = g.body();
    llvm::DenseSet<mlir::Operation *> live = g.liveOps(fn.results);
    llvm::DenseMap<mlir::Value, int64_t> number;
    number.reserve(traced.getNumArguments() + 2 * live.size());
    for (mlir::BlockArgument arg : traced.getArguments()) {
      number[arg] = static_cast<int64_t>(number.size());
      str("input");
      num(g.inputPosition(arg.getArgNumber()));
      type(arg.getType());
    }
    int64_t next = static_cast<int64_t>(number.size());
    for (mlir::Operation &op : traced) {
      if (!live.contains(&op))
        continue;
      once(out.names, op.getName().getAsOpaquePointer(),
           [&] { str(op.getName().getStringRef()); });
      num(static_cast<int64_t>(op.getNumOperands()));
      // Operands relative to the op's own number: a chain's are small.
      for (mlir::Value o : op.getOperands())
        num(next - number.lookup(o));
      num(static_cast<int64_t>(op.getNumResults()));
      for (mlir::Value r : op.getResults()) {
        type(r.getType());
        number[r] = next++;
      }
      // Attributes in name order (inherent ones read from the properties,
      // nothing created in the context); an application's callee by its
      // Function's digest, not its placeholder symbol.
      mlir::NamedAttrList attrs(op.getRawDictionaryAttrs());
      for (mlir::StringAttr name : op.getName().getAttributeNames())
        if (std::optional<mlir::Attribute> value = op.getInherentAttr(name.getValue()))
          if (*value)
            attrs.set(name, *value);
      num(static_cast<int64_t>(attrs.getAttrs().size()));
      for (const mlir::NamedAttribute &a : attrs) {
        once(out.names, a.getName().getAsOpaquePointer(),
             [&] { str(a.getName().getValue()); });
        if (a.getName() == "callee" && Graph::isApplication(&op)) {
          // By content: two Functions traced alike are one callee.
          std::string text = digest(g.callee(&op));
          once(out.callees, llvm::StringRef(text), [&] { str(text); });
        } else {
          once(out.attributes, a.getValue().getAsOpaquePointer(),
               [&] { attribute(a.getValue()); });
        }
      }
    }
    num(static_cast<int64_t>(fn.results.size()));
    for (int32_t r : fn.results)
      num(number.lookup(g.value(r)));
    auto bytes = out.sha.final();
    out = std::move(saved);
    std::string hex = llvm::toHex(llvm::ArrayRef<uint8_t>(bytes.data(), bytes.size()), true);
    memo[&fn] = hex;
    return hex;
  }

private:
  /// One function's stream and its back-reference tables.
  struct Stream {
    BufferedSHA256 sha;
    llvm::DenseMap<const void *, int64_t> names, types, attributes;
    llvm::StringMap<int64_t> callees; // by digest
  };
  Stream out;
  llvm::DenseMap<const Function *, std::string> memo;

  /// `key`'s back-reference when it was written before; else a 0 and its
  /// definition, written by `define`.
  template <typename Table, typename Key, typename Define>
  void once(Table &table, Key key, Define define) {
    auto [it, fresh] = table.try_emplace(key, static_cast<int64_t>(table.size()) + 1);
    if (!fresh) {
      num(it->second);
      return;
    }
    num(0);
    define();
  }
  /// A signed integer as a zigzag LEB128 varint (small ones in one byte).
  void num(int64_t v) {
    uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
    uint8_t b[10];
    size_t n = 0;
    do {
      b[n++] = static_cast<uint8_t>((z & 0x7f) | (z > 0x7f ? 0x80 : 0));
      z >>= 7;
    } while (z);
    out.sha.update(llvm::ArrayRef<uint8_t>(b, n));
  }
  void str(llvm::StringRef s) {
    num(static_cast<int64_t>(s.size()));
    out.sha.update(s);
  }
  /// A type as printed (shapes and element types print exactly).
  void type(mlir::Type t) {
    once(out.types, t.getAsOpaquePointer(), [&] { str(printed(t)); });
  }
  template <typename T> static std::string printed(T x) {
    std::string text;
    llvm::raw_string_ostream os(text);
    x.print(os);
    return text;
  }
  /// An attribute: the raw data of large arrays (printing them costs more
  /// than hashing), anything else as printed.
  void attribute(mlir::Attribute a) {
    if (auto dense = llvm::dyn_cast<mlir::DenseElementsAttr>(a)) {
      num(1);
      type(dense.getType());
      num(dense.isSplat());
      llvm::ArrayRef<char> raw = dense.getRawData();
      str(llvm::StringRef(raw.data(), raw.size()));
      return;
    }
    if (auto ints = llvm::dyn_cast<mlir::DenseI64ArrayAttr>(a)) {
      num(2);
      shape(ints.asArrayRef());
      return;
    }
    num(3);
    str(printed(a));
  }
  void shape(llvm::ArrayRef<int64_t> s) {
    num(static_cast<int64_t>(s.size()));
    for (int64_t d : s)
      num(d);
  }
};

} // namespace

std::string graphDigest(const Function &fn) { return Digester().digest(fn); }

} // namespace scaly::trace
