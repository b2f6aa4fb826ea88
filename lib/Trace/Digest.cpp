//===- Digest.cpp - content digest of a traced Function ------------------===//

#include "scaly/Trace/Digest.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

#include <cstring>

namespace scaly::trace {
namespace {

class Digester {
public:
  std::string digest(const Function &fn) {
    auto it = memo.find(&fn);
    if (it != memo.end())
      return it->second;
    llvm::SHA256 h;
    auto str = [&](const std::string &s) {
      i64(static_cast<int64_t>(s.size()));
      h.update(s);
    };
    i64Into = &h;
    str("scaly-function-v1");
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
    // Only the nodes the results depend on, renumbered densely, so that dead
    // intermediate nodes do not change the digest.
    const Graph &g = *fn.graph;
    std::vector<int32_t> live(g.size(), -1);
    for (int32_t r : fn.results)
      live[r] = 0;
    for (size_t i = g.size(); i-- > 0;)
      if (live[i] == 0)
        for (int32_t o : g.node(i).operands)
          live[o] = 0;
    int32_t next = 0;
    for (size_t i = 0; i < g.size(); ++i) {
      if (live[i] < 0)
        continue;
      live[i] = next++;
      const Node &n = g.node(i);
      llvm::SHA256 *saved = i64Into;
      std::string callee = n.callee ? digest(*n.callee) : "";
      i64Into = saved;
      i64(static_cast<int64_t>(n.kind));
      i64(static_cast<int64_t>(n.dtype));
      shape(n.shape);
      i64(static_cast<int64_t>(n.operands.size()));
      for (int32_t o : n.operands)
        i64(live[o]);
      i64(n.sub);
      shape(n.ints);
      i64(static_cast<int64_t>(n.values.size()));
      if (!n.values.empty())
        h.update(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(n.values.data()),
                                         n.values.size() * sizeof(double)));
      str(callee);
    }
    i64(static_cast<int64_t>(fn.results.size()));
    for (int32_t r : fn.results)
      i64(live[r]);
    auto bytes = h.final();
    std::string hex = llvm::toHex(llvm::ArrayRef<uint8_t>(bytes.data(), bytes.size()), true);
    memo[&fn] = hex;
    return hex;
  }

private:
  llvm::DenseMap<const Function *, std::string> memo;
  llvm::SHA256 *i64Into = nullptr;

  void i64(int64_t v) {
    uint8_t b[8];
    std::memcpy(b, &v, 8);
    i64Into->update(llvm::ArrayRef<uint8_t>(b, 8));
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
