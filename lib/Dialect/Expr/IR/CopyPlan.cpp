//===- CopyPlan.cpp - expr.copy_plan: how a transposed result is written --===//
//
// scaly-plan-loop-orders marks an op whose large float result is computed
// through a transpose that moves the last axis with expr.copy_plan;
// scaly-lower-to-program hands the plan to the nest writing that result
// (scaly.copy_plan), and scaly-tile-copies executes it. The plan is a
// dictionary, printed as it reads:
//
//   {block = [4, 4], order = "rows", stores = "plain"}
//   {block = [4, 4], order = "tiles", stores = "elements", tile = 256}
//   {block = [8, 8], order = "rows", stores = "lines",
//    unaligned = {block = [4, 4], order = "tiles", stores = "elements", tile = 256}}
//
// `block` is rows x columns of the last two axes; `stores` plain, lines
// (streaming stores of whole 64-byte lines, under a run-time test that the
// result is 64-byte aligned; `unaligned` is the nest for the other branch)
// or elements (element-aligned streaming stores); `order` which loop is
// outermost: block rows, block columns, or tiles of `tile` columns with the
// block rows outer within a tile. The dialect verifies a plan against the
// op's result, so the loop pass can execute any plan it is given: a streamed
// line must be a whole, aligned line, a tile whole blocks.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/ExprDialect.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace scaly::expr;

namespace {

constexpr StringLiteral kBlockKey = "block", kOrderKey = "order", kStoresKey = "stores",
                        kTileKey = "tile", kUnalignedKey = "unaligned";

/// The names of CopyStores and CopyOrder, in enum order.
const StringRef kStoresNames[] = {"plain", "lines", "elements"};
const StringRef kOrderNames[] = {"rows", "columns", "tiles"};

DictionaryAttr nestAttr(Builder &b, const CopyNest &nest, const std::optional<CopyNest> &unaligned) {
  SmallVector<NamedAttribute> entries = {
      b.getNamedAttr(kBlockKey, b.getI64ArrayAttr({nest.blockRows, nest.blockCols})),
      b.getNamedAttr(kOrderKey, b.getStringAttr(kOrderNames[static_cast<size_t>(nest.order)])),
      b.getNamedAttr(kStoresKey, b.getStringAttr(kStoresNames[static_cast<size_t>(nest.stores)]))};
  if (nest.order == CopyOrder::tiles)
    entries.push_back(b.getNamedAttr(kTileKey, b.getI64IntegerAttr(nest.tile)));
  if (unaligned)
    entries.push_back(b.getNamedAttr(kUnalignedKey, nestAttr(b, *unaligned, std::nullopt)));
  return b.getDictionaryAttr(entries);
}

/// The string entry `key` of `d` as one of `names` (in enum order), or
/// nothing with `why` set.
template <typename Enum, size_t N>
std::optional<Enum> readName(DictionaryAttr d, StringRef key, const StringRef (&names)[N],
                             std::string &why) {
  auto name = d.getAs<StringAttr>(key);
  for (size_t k = 0; name && k < N; ++k)
    if (name.getValue() == names[k])
      return static_cast<Enum>(k);
  why = ("`" + key + "` must be one of ").str();
  for (size_t k = 0; k < N; ++k)
    why += (k ? ", \"" : "\"") + names[k].str() + "\"";
  return std::nullopt;
}

/// One nest of `d` for a result whose elements are `elemBytes` wide, or
/// nothing with `why` set.
std::optional<CopyNest> readNest(DictionaryAttr d, int64_t elemBytes, std::string &why) {
  for (NamedAttribute entry : d)
    if (!llvm::is_contained({kBlockKey, kOrderKey, kStoresKey, kTileKey, kUnalignedKey},
                            entry.getName().getValue())) {
      why = ("unknown key `" + entry.getName().getValue() + "`").str();
      return std::nullopt;
    }
  CopyNest nest;
  std::optional<CopyStores> stores = readName<CopyStores>(d, kStoresKey, kStoresNames, why);
  std::optional<CopyOrder> order = stores ? readName<CopyOrder>(d, kOrderKey, kOrderNames, why)
                                          : std::nullopt;
  if (!order)
    return std::nullopt;
  nest.stores = *stores;
  nest.order = *order;
  auto block = d.getAs<ArrayAttr>(kBlockKey);
  auto size = [&](unsigned k) {
    auto n = block && block.size() == 2 ? dyn_cast<IntegerAttr>(block[k]) : IntegerAttr();
    return n ? n.getInt() : 0;
  };
  nest.blockRows = size(0);
  nest.blockCols = size(1);
  // A streamed line is a whole line; other block rows are 4 or 8 values.
  int64_t line = kCacheLineBytes / elemBytes;
  bool colsFit = nest.stores == CopyStores::lines ? nest.blockCols == line
                                                  : nest.blockCols == 4 || nest.blockCols == 8;
  if ((nest.blockRows != 4 && nest.blockRows != 8) || !colsFit) {
    why = "`block` must be [rows, columns], rows 4 or 8, columns " +
          (nest.stores == CopyStores::lines ? "one line (" + std::to_string(line) + ")"
                                            : std::string("4 or 8"));
    return std::nullopt;
  }
  auto tile = d.getAs<IntegerAttr>(kTileKey);
  if (nest.order == CopyOrder::tiles) {
    nest.tile = tile ? tile.getInt() : 0;
    if (nest.tile <= 0 || nest.tile % nest.blockCols != 0) {
      why = "`tile` must be a positive multiple of the block columns";
      return std::nullopt;
    }
  } else if (d.get(kTileKey)) {
    why = "`tile` belongs to order \"tiles\" only";
    return std::nullopt;
  }
  return nest;
}

} // namespace

std::optional<CopyPlan> scaly::expr::readCopyPlan(Attribute attr, Type type, std::string &why) {
  auto d = dyn_cast<DictionaryAttr>(attr);
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() < 2 || !isa<FloatType>(tensor.getElementType())) {
    why = "belongs on an op with one float result of rank 2 or more";
    return std::nullopt;
  }
  if (!d) {
    why = "must be a dictionary";
    return std::nullopt;
  }
  int64_t elemBytes = tensor.getElementTypeBitWidth() / 8;
  CopyPlan plan;
  std::optional<CopyNest> nest = readNest(d, elemBytes, why);
  if (!nest)
    return std::nullopt;
  plan.nest = *nest;
  auto unaligned = d.getAs<DictionaryAttr>(kUnalignedKey);
  bool lines = nest->stores == CopyStores::lines;
  if (lines != static_cast<bool>(unaligned) || (!lines && d.get(kUnalignedKey))) {
    why = "`unaligned` (a nest) belongs to stores \"lines\", and only there";
    return std::nullopt;
  }
  if (!lines)
    return plan;
  // Every block row's line is aligned when the result is only if each row
  // is whole lines.
  if (tensor.getShape().back() * elemBytes % kCacheLineBytes != 0) {
    why = "stores \"lines\" needs rows of whole 64-byte lines";
    return std::nullopt;
  }
  plan.unaligned = readNest(unaligned, elemBytes, why);
  if (!plan.unaligned)
    return std::nullopt;
  if (plan.unaligned->stores == CopyStores::lines || unaligned.get(kUnalignedKey)) {
    why = "the `unaligned` nest cannot store lines";
    return std::nullopt;
  }
  return plan;
}

DictionaryAttr scaly::expr::copyPlanAttr(MLIRContext *ctx, const CopyPlan &plan) {
  Builder b(ctx);
  return nestAttr(b, plan.nest, plan.unaligned);
}

LogicalResult scaly::expr::verifyCopyPlan(Operation *op, Attribute plan) {
  std::string why = "belongs on an op with one float result of rank 2 or more";
  if (op->getNumResults() == 1 && readCopyPlan(plan, op->getResult(0).getType(), why))
    return success();
  return op->emitError() << kCopyPlanAttr << ": " << why << ", got " << plan;
}

bool scaly::expr::movesLastAxis(TransposeOp t) {
  ArrayRef<int64_t> perm = t.getPermutation();
  return !perm.empty() && perm.back() != static_cast<int64_t>(perm.size()) - 1;
}

bool scaly::expr::isCopyArithmetic(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, NegOp, CastOp, CmpOp, SelectOp>(op);
}
