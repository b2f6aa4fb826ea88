//===- ScalyAttrs.td - attribute constraints shared by Scaly's dialects ---===//

#ifndef SCALY_ATTRS
#define SCALY_ATTRS

include "mlir/IR/CommonAttrConstraints.td"

// A signless 64-bit integer read back as a signed int64_t (I64Attr gives
// uint64_t, which turns -1 sentinels and sign checks into traps).
def Scaly_I64Attr : TypedSignlessIntegerAttrBase<I64, "int64_t", "64-bit integer attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

#endif // SCALY_ATTRS
