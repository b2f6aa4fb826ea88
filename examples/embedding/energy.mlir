// A Scaly expression module, as sc.function traces it: e = sum(x * x).
expr.func @energy(%x: tensor<3xf64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["e"], entry} {
  %0 = expr.mul %x, %x : tensor<3xf64>
  %1 = expr.reduce sum %0 axes [0] : tensor<3xf64> to tensor<f64>
  expr.return %1 : tensor<f64>
}
