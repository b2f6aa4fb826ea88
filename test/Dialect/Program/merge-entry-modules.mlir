// RUN: scaly-opt %s --split-input-file --scaly-merge-entry-modules | FileCheck %s
//
// The nested modules' symbols move into the parent, in order. A symbol both
// sides lowered alike (@h) is kept once; one that differs (@k) is renamed
// on the side that brought it second, with its module's references, and so
// is a symbol that is alike but reaches one that differs (@m reaches @k).
// Alike includes the locations: copies of one function carry the same.
// An entry keeps its name: the earlier module's copy of @g is renamed.

// CHECK-NOT:   builtin.module
// CHECK-LABEL: expr.func @g_1(
// CHECK:         expr.neg
// CHECK-LABEL: expr.func @h(
// CHECK-LABEL: expr.func @k(
// CHECK:         expr.math exp
// CHECK-LABEL: expr.func @m(
// CHECK:         expr.call @k(
// CHECK-LABEL: expr.func @f(
// CHECK:         expr.call @g_1(
// CHECK:         expr.call @h(
// CHECK:         expr.call @m(
// CHECK-NOT:   expr.func @h(
// CHECK-LABEL: expr.func @k_1(
// CHECK:         expr.math sin
// CHECK-LABEL: expr.func @m_1(
// CHECK:         expr.call @k_1(
// CHECK-LABEL: expr.func @g(
// CHECK-SAME:    entry
// CHECK:         expr.call @h(
// CHECK:         expr.call @m_1(
// CHECK-NOT:   builtin.module
module {
  module {
    expr.func @g(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
      %n = expr.neg %x : tensor<f64>
      expr.return %n : tensor<f64>
    }
    expr.func @h(%x: tensor<f64> loc(#h)) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
      %n = expr.mul %x, %x : tensor<f64> loc(#h)
      expr.return %n : tensor<f64> loc(#h)
    } loc(#h)
    expr.func @k(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
      %n = expr.math exp %x : tensor<f64>
      expr.return %n : tensor<f64>
    }
    expr.func @m(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
      %n = expr.call @k(%x) : (tensor<f64>) -> tensor<f64>
      expr.return %n : tensor<f64>
    }
    expr.func @f(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
      %a = expr.call @g(%x) : (tensor<f64>) -> tensor<f64>
      %b = expr.call @h(%a) : (tensor<f64>) -> tensor<f64>
      %c = expr.call @m(%b) : (tensor<f64>) -> tensor<f64>
      expr.return %c : tensor<f64>
    }
  }
  module {
    expr.func @h(%x: tensor<f64> loc(#h)) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
      %n = expr.mul %x, %x : tensor<f64> loc(#h)
      expr.return %n : tensor<f64> loc(#h)
    } loc(#h)
    expr.func @k(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
      %n = expr.math sin %x : tensor<f64>
      expr.return %n : tensor<f64>
    }
    expr.func @m(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
      %n = expr.call @k(%x) : (tensor<f64>) -> tensor<f64>
      expr.return %n : tensor<f64>
    }
    expr.func @g(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
      %a = expr.call @h(%x) : (tensor<f64>) -> tensor<f64>
      %b = expr.call @m(%a) : (tensor<f64>) -> tensor<f64>
      expr.return %b : tensor<f64>
    }
  }
}

#h = loc("model.py":3:0)

// -----

// Without nested modules nothing changes.
// CHECK-LABEL: expr.func @only(
// CHECK-LABEL: expr.func @only_helper(
expr.func @only(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
  %a = expr.call @only_helper(%x) : (tensor<f64>) -> tensor<f64>
  expr.return %a : tensor<f64>
}
expr.func @only_helper(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %n = expr.neg %x : tensor<f64>
  expr.return %n : tensor<f64>
}

// -----

// Declarations of one external function are kept once, wherever each
// module declared it.
// CHECK-LABEL: prog.extern @lib_fn
// CHECK-NOT:   prog.extern
module {
  module {
    prog.extern @lib_fn : (f64) -> f64 loc("a.py":1:0)
  }
  module {
    prog.extern @lib_fn : (f64) -> f64 loc("b.py":2:0)
  }
}

// -----

// Functions calling each other in a cycle: identical around the cycle on
// both sides but reaching a difference (@c), so the second module's whole
// cycle is renamed, and its entry calls its own copy.
// CHECK-LABEL: expr.func @a(
// CHECK:         expr.call @b(
// CHECK:         expr.call @c(
// CHECK-LABEL: expr.func @c(
// CHECK:         expr.math exp
// CHECK-LABEL: expr.func @a_1(
// CHECK:         expr.call @b_1(
// CHECK:         expr.call @c_1(
// CHECK-LABEL: expr.func @b_1(
// CHECK:         expr.call @a_1(
// CHECK-LABEL: expr.func @c_1(
// CHECK:         expr.math sin
// CHECK-LABEL: expr.func @g(
// CHECK:         expr.call @b_1(
module {
  module {
    expr.func @a(%x: tensor<f64> loc(#l)) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
      %n = expr.call @b(%x) : (tensor<f64>) -> tensor<f64> loc(#l)
      %m = expr.call @c(%n) : (tensor<f64>) -> tensor<f64> loc(#l)
      expr.return %m : tensor<f64> loc(#l)
    } loc(#l)
    expr.func @b(%x: tensor<f64> loc(#l)) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
      %n = expr.call @a(%x) : (tensor<f64>) -> tensor<f64> loc(#l)
      expr.return %n : tensor<f64> loc(#l)
    } loc(#l)
    expr.func @c(%x: tensor<f64> loc(#l)) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
      %n = expr.math exp %x : tensor<f64> loc(#l)
      expr.return %n : tensor<f64> loc(#l)
    } loc(#l)
    expr.func @f(%x: tensor<f64> loc(#l)) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
      %n = expr.call @a(%x) : (tensor<f64>) -> tensor<f64> loc(#l)
      expr.return %n : tensor<f64> loc(#l)
    } loc(#l)
  }
  module {
    expr.func @a(%x: tensor<f64> loc(#l)) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
      %n = expr.call @b(%x) : (tensor<f64>) -> tensor<f64> loc(#l)
      %m = expr.call @c(%n) : (tensor<f64>) -> tensor<f64> loc(#l)
      expr.return %m : tensor<f64> loc(#l)
    } loc(#l)
    expr.func @b(%x: tensor<f64> loc(#l)) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
      %n = expr.call @a(%x) : (tensor<f64>) -> tensor<f64> loc(#l)
      expr.return %n : tensor<f64> loc(#l)
    } loc(#l)
    expr.func @c(%x: tensor<f64> loc(#l)) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
      %n = expr.math sin %x : tensor<f64> loc(#l)
      expr.return %n : tensor<f64> loc(#l)
    } loc(#l)
    expr.func @g(%x: tensor<f64> loc(#l)) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
      %n = expr.call @b(%x) : (tensor<f64>) -> tensor<f64> loc(#l)
      expr.return %n : tensor<f64> loc(#l)
    } loc(#l)
  }
}
#l = loc("m.py":1:0)

// -----

// Modules marked by scaly-outline-entries (largest first) merge in their
// entries' order: @f's module (index 0) first, so its @k keeps the name and
// @g's module, listed first, brings @k_1.
// CHECK-LABEL: expr.func @k(
// CHECK:         expr.math exp
// CHECK-LABEL: expr.func @f(
// CHECK:         expr.call @k(
// CHECK-LABEL: expr.func @k_1(
// CHECK:         expr.math sin
// CHECK-LABEL: expr.func @g(
// CHECK:         expr.call @k_1(
// CHECK-NOT:   scaly.entry_index
module {
  module attributes {scaly.entry_index = 1 : i64} {
    expr.func @k(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
      %n = expr.math sin %x : tensor<f64>
      expr.return %n : tensor<f64>
    }
    expr.func @g(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
      %n = expr.call @k(%x) : (tensor<f64>) -> tensor<f64>
      expr.return %n : tensor<f64>
    }
  }
  module attributes {scaly.entry_index = 0 : i64} {
    expr.func @k(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
      %n = expr.math exp %x : tensor<f64>
      expr.return %n : tensor<f64>
    }
    expr.func @f(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
      %n = expr.call @k(%x) : (tensor<f64>) -> tensor<f64>
      expr.return %n : tensor<f64>
    }
  }
}
