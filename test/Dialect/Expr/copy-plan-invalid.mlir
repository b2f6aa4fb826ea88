// RUN: scaly-opt %s -split-input-file -verify-diagnostics
//
// A malformed expr.copy_plan, or one that does not fit its op's result, is
// refused when it is read: the lowering executes any plan it is given, so a
// streamed line must be a whole line of an aligned row, a tile whole blocks.

// A well-formed plan of each kind is accepted.
expr.func @accepted(%x: tensor<16x8xf64>) -> tensor<8x16xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] {expr.copy_plan = {block = [4, 4], order = "rows", stores = "plain"}} : tensor<16x8xf64> to tensor<8x16xf64>
  %a = expr.neg %t {expr.copy_plan = {block = [4, 4], order = "tiles", stores = "elements", tile = 8}} : tensor<8x16xf64>
  %b = expr.neg %a {expr.copy_plan = {block = [8, 8], order = "rows", stores = "lines", unaligned = {block = [4, 4], order = "tiles", stores = "elements", tile = 256}}} : tensor<8x16xf64>
  expr.return %b : tensor<8x16xf64>
}

// -----

expr.func @integer(%x: tensor<8x8xi64>) -> tensor<8x8xi64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expr.copy_plan: belongs on an op with one float result of rank 2 or more, got {block = [4, 4], order = "rows", stores = "plain"}}}
  %0 = expr.neg %x {expr.copy_plan = {block = [4, 4], order = "rows", stores = "plain"}} : tensor<8x8xi64>
  expr.return %0 : tensor<8x8xi64>
}

// -----

expr.func @vector(%x: tensor<16xf64>) -> tensor<16xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expr.copy_plan: belongs on an op with one float result of rank 2 or more}}
  %0 = expr.neg %x {expr.copy_plan = {block = [4, 4], order = "rows", stores = "plain"}} : tensor<16xf64>
  expr.return %0 : tensor<16xf64>
}

// -----

expr.func @not_a_dictionary(%x: tensor<8x8xf64>) -> tensor<8x8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expr.copy_plan: must be a dictionary, got "rows"}}
  %0 = expr.neg %x {expr.copy_plan = "rows"} : tensor<8x8xf64>
  expr.return %0 : tensor<8x8xf64>
}

// -----

expr.func @unknown_key(%x: tensor<8x8xf64>) -> tensor<8x8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expr.copy_plan: unknown key `tiles`}}
  %0 = expr.neg %x {expr.copy_plan = {block = [4, 4], order = "rows", stores = "plain", tiles = 4}} : tensor<8x8xf64>
  expr.return %0 : tensor<8x8xf64>
}

// -----

expr.func @unknown_stores(%x: tensor<8x8xf64>) -> tensor<8x8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expr.copy_plan: `stores` must be one of "plain", "lines", "elements"}}
  %0 = expr.neg %x {expr.copy_plan = {block = [4, 4], order = "rows", stores = "streamed"}} : tensor<8x8xf64>
  expr.return %0 : tensor<8x8xf64>
}

// -----

expr.func @unknown_order(%x: tensor<8x8xf64>) -> tensor<8x8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expr.copy_plan: `order` must be one of "rows", "columns", "tiles"}}
  %0 = expr.neg %x {expr.copy_plan = {block = [4, 4], stores = "plain"}} : tensor<8x8xf64>
  expr.return %0 : tensor<8x8xf64>
}

// -----

expr.func @block_shape(%x: tensor<8x8xf64>) -> tensor<8x8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expr.copy_plan: `block` must be [rows, columns], rows 4 or 8, columns 4 or 8}}
  %0 = expr.neg %x {expr.copy_plan = {block = [4, 5], order = "rows", stores = "plain"}} : tensor<8x8xf64>
  expr.return %0 : tensor<8x8xf64>
}

// -----

// A streamed line of floats is 16 of them.
expr.func @line_width(%x: tensor<8x16xf32>) -> tensor<8x16xf32> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expr.copy_plan: `block` must be [rows, columns], rows 4 or 8, columns one line (16)}}
  %0 = expr.neg %x {expr.copy_plan = {block = [8, 8], order = "rows", stores = "lines", unaligned = {block = [4, 4], order = "rows", stores = "elements"}}} : tensor<8x16xf32>
  expr.return %0 : tensor<8x16xf32>
}

// -----

expr.func @tile_missing(%x: tensor<8x8xf64>) -> tensor<8x8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expr.copy_plan: `tile` must be a positive multiple of the block columns}}
  %0 = expr.neg %x {expr.copy_plan = {block = [4, 4], order = "tiles", stores = "elements"}} : tensor<8x8xf64>
  expr.return %0 : tensor<8x8xf64>
}

// -----

expr.func @tile_partial_block(%x: tensor<8x8xf64>) -> tensor<8x8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expr.copy_plan: `tile` must be a positive multiple of the block columns}}
  %0 = expr.neg %x {expr.copy_plan = {block = [4, 8], order = "tiles", stores = "plain", tile = 12}} : tensor<8x8xf64>
  expr.return %0 : tensor<8x8xf64>
}

// -----

expr.func @tile_without_tiles(%x: tensor<8x8xf64>) -> tensor<8x8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expr.copy_plan: `tile` belongs to order "tiles" only}}
  %0 = expr.neg %x {expr.copy_plan = {block = [4, 4], order = "rows", stores = "plain", tile = 8}} : tensor<8x8xf64>
  expr.return %0 : tensor<8x8xf64>
}

// -----

// Rows of 12 doubles (96 bytes) are not whole lines: the second row's
// blocks would not be aligned.
expr.func @lines_odd_rows(%x: tensor<8x12xf64>) -> tensor<8x12xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expr.copy_plan: stores "lines" needs rows of whole 64-byte lines}}
  %0 = expr.neg %x {expr.copy_plan = {block = [4, 8], order = "columns", stores = "lines", unaligned = {block = [4, 4], order = "rows", stores = "plain"}}} : tensor<8x12xf64>
  expr.return %0 : tensor<8x12xf64>
}

// -----

expr.func @lines_without_fallback(%x: tensor<8x8xf64>) -> tensor<8x8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expr.copy_plan: `unaligned` (a nest) belongs to stores "lines", and only there}}
  %0 = expr.neg %x {expr.copy_plan = {block = [8, 8], order = "rows", stores = "lines"}} : tensor<8x8xf64>
  expr.return %0 : tensor<8x8xf64>
}

// -----

expr.func @fallback_without_lines(%x: tensor<8x8xf64>) -> tensor<8x8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expr.copy_plan: `unaligned` (a nest) belongs to stores "lines", and only there}}
  %0 = expr.neg %x {expr.copy_plan = {block = [4, 4], order = "rows", stores = "plain", unaligned = {block = [4, 4], order = "rows", stores = "plain"}}} : tensor<8x8xf64>
  expr.return %0 : tensor<8x8xf64>
}

// -----

expr.func @fallback_lines(%x: tensor<8x8xf64>) -> tensor<8x8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expr.copy_plan: the `unaligned` nest cannot store lines}}
  %0 = expr.neg %x {expr.copy_plan = {block = [8, 8], order = "rows", stores = "lines", unaligned = {block = [8, 8], order = "rows", stores = "lines"}}} : tensor<8x8xf64>
  expr.return %0 : tensor<8x8xf64>
}
