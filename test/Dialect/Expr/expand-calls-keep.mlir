// RUN: scaly-opt %s --scaly-expand-calls | FileCheck %s
//
// A function without the block hint that expansion would copy at least 8
// times, the copies adding at least 1024 operations, is kept as a procedure:
// its calls get {block}. @step (8 calls, 137 operations once its own callee is
// expanded) is kept; @leaf, copied 8 times into the kept @step (8 x 17 = 136
// operations), is expanded; @big, called 7 times, is expanded however large.

// CHECK-LABEL: expr.func @main(
// CHECK-COUNT-8: expr.call @step({{.*}}) {block}
// CHECK-NOT:     expr.call
// CHECK:         expr.return
// CHECK-LABEL: expr.func @step(
// CHECK-NOT:     expr.call
// CHECK:         expr.return
// CHECK-NOT:   expr.func @leaf
// CHECK-NOT:   expr.func @big

expr.func @main(%x: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) attributes {arg_names = ["x"], res_names = ["a", "b"]} {
  %s0 = expr.call @step(%x) : (tensor<2xf64>) -> tensor<2xf64>
  %s1 = expr.call @step(%s0) : (tensor<2xf64>) -> tensor<2xf64>
  %s2 = expr.call @step(%s1) : (tensor<2xf64>) -> tensor<2xf64>
  %s3 = expr.call @step(%s2) : (tensor<2xf64>) -> tensor<2xf64>
  %s4 = expr.call @step(%s3) : (tensor<2xf64>) -> tensor<2xf64>
  %s5 = expr.call @step(%s4) : (tensor<2xf64>) -> tensor<2xf64>
  %s6 = expr.call @step(%s5) : (tensor<2xf64>) -> tensor<2xf64>
  %s7 = expr.call @step(%s6) : (tensor<2xf64>) -> tensor<2xf64>
  %b0 = expr.call @big(%x) : (tensor<2xf64>) -> tensor<2xf64>
  %b1 = expr.call @big(%b0) : (tensor<2xf64>) -> tensor<2xf64>
  %b2 = expr.call @big(%b1) : (tensor<2xf64>) -> tensor<2xf64>
  %b3 = expr.call @big(%b2) : (tensor<2xf64>) -> tensor<2xf64>
  %b4 = expr.call @big(%b3) : (tensor<2xf64>) -> tensor<2xf64>
  %b5 = expr.call @big(%b4) : (tensor<2xf64>) -> tensor<2xf64>
  %b6 = expr.call @big(%b5) : (tensor<2xf64>) -> tensor<2xf64>
  expr.return %s7, %b6 : tensor<2xf64>, tensor<2xf64>
}

expr.func @step(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %c0 = expr.call @leaf(%x) : (tensor<2xf64>) -> tensor<2xf64>
  %c1 = expr.call @leaf(%c0) : (tensor<2xf64>) -> tensor<2xf64>
  %c2 = expr.call @leaf(%c1) : (tensor<2xf64>) -> tensor<2xf64>
  %c3 = expr.call @leaf(%c2) : (tensor<2xf64>) -> tensor<2xf64>
  %c4 = expr.call @leaf(%c3) : (tensor<2xf64>) -> tensor<2xf64>
  %c5 = expr.call @leaf(%c4) : (tensor<2xf64>) -> tensor<2xf64>
  %c6 = expr.call @leaf(%c5) : (tensor<2xf64>) -> tensor<2xf64>
  %c7 = expr.call @leaf(%c6) : (tensor<2xf64>) -> tensor<2xf64>
  expr.return %c7 : tensor<2xf64>
}

expr.func @leaf(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %m0_0 = expr.mul %x, %x : tensor<2xf64>
  %m0_1 = expr.mul %m0_0, %m0_0 : tensor<2xf64>
  %m0_2 = expr.mul %m0_1, %m0_1 : tensor<2xf64>
  %m0_3 = expr.mul %m0_2, %m0_2 : tensor<2xf64>
  %m0_4 = expr.mul %m0_3, %m0_3 : tensor<2xf64>
  %m0_5 = expr.mul %m0_4, %m0_4 : tensor<2xf64>
  %m0_6 = expr.mul %m0_5, %m0_5 : tensor<2xf64>
  %m0_7 = expr.mul %m0_6, %m0_6 : tensor<2xf64>
  %m0_8 = expr.mul %m0_7, %m0_7 : tensor<2xf64>
  %m0_9 = expr.mul %m0_8, %m0_8 : tensor<2xf64>
  %m0_10 = expr.mul %m0_9, %m0_9 : tensor<2xf64>
  %m0_11 = expr.mul %m0_10, %m0_10 : tensor<2xf64>
  %m0_12 = expr.mul %m0_11, %m0_11 : tensor<2xf64>
  %m0_13 = expr.mul %m0_12, %m0_12 : tensor<2xf64>
  %m0_14 = expr.mul %m0_13, %m0_13 : tensor<2xf64>
  %m0_15 = expr.mul %m0_14, %m0_14 : tensor<2xf64>
  expr.return %m0_15 : tensor<2xf64>
}

expr.func @big(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %m0_0 = expr.mul %x, %x : tensor<2xf64>
  %m0_1 = expr.mul %m0_0, %m0_0 : tensor<2xf64>
  %m0_2 = expr.mul %m0_1, %m0_1 : tensor<2xf64>
  %m0_3 = expr.mul %m0_2, %m0_2 : tensor<2xf64>
  %m0_4 = expr.mul %m0_3, %m0_3 : tensor<2xf64>
  %m0_5 = expr.mul %m0_4, %m0_4 : tensor<2xf64>
  %m0_6 = expr.mul %m0_5, %m0_5 : tensor<2xf64>
  %m0_7 = expr.mul %m0_6, %m0_6 : tensor<2xf64>
  %m0_8 = expr.mul %m0_7, %m0_7 : tensor<2xf64>
  %m0_9 = expr.mul %m0_8, %m0_8 : tensor<2xf64>
  %m0_10 = expr.mul %m0_9, %m0_9 : tensor<2xf64>
  %m0_11 = expr.mul %m0_10, %m0_10 : tensor<2xf64>
  %m0_12 = expr.mul %m0_11, %m0_11 : tensor<2xf64>
  %m0_13 = expr.mul %m0_12, %m0_12 : tensor<2xf64>
  %m0_14 = expr.mul %m0_13, %m0_13 : tensor<2xf64>
  %m0_15 = expr.mul %m0_14, %m0_14 : tensor<2xf64>
  %m0_16 = expr.mul %m0_15, %m0_15 : tensor<2xf64>
  %m0_17 = expr.mul %m0_16, %m0_16 : tensor<2xf64>
  %m0_18 = expr.mul %m0_17, %m0_17 : tensor<2xf64>
  %m0_19 = expr.mul %m0_18, %m0_18 : tensor<2xf64>
  %m0_20 = expr.mul %m0_19, %m0_19 : tensor<2xf64>
  %m0_21 = expr.mul %m0_20, %m0_20 : tensor<2xf64>
  %m0_22 = expr.mul %m0_21, %m0_21 : tensor<2xf64>
  %m0_23 = expr.mul %m0_22, %m0_22 : tensor<2xf64>
  %m0_24 = expr.mul %m0_23, %m0_23 : tensor<2xf64>
  %m0_25 = expr.mul %m0_24, %m0_24 : tensor<2xf64>
  %m0_26 = expr.mul %m0_25, %m0_25 : tensor<2xf64>
  %m0_27 = expr.mul %m0_26, %m0_26 : tensor<2xf64>
  %m0_28 = expr.mul %m0_27, %m0_27 : tensor<2xf64>
  %m0_29 = expr.mul %m0_28, %m0_28 : tensor<2xf64>
  %m0_30 = expr.mul %m0_29, %m0_29 : tensor<2xf64>
  %m0_31 = expr.mul %m0_30, %m0_30 : tensor<2xf64>
  %m0_32 = expr.mul %m0_31, %m0_31 : tensor<2xf64>
  %m0_33 = expr.mul %m0_32, %m0_32 : tensor<2xf64>
  %m0_34 = expr.mul %m0_33, %m0_33 : tensor<2xf64>
  %m0_35 = expr.mul %m0_34, %m0_34 : tensor<2xf64>
  %m0_36 = expr.mul %m0_35, %m0_35 : tensor<2xf64>
  %m0_37 = expr.mul %m0_36, %m0_36 : tensor<2xf64>
  %m0_38 = expr.mul %m0_37, %m0_37 : tensor<2xf64>
  %m0_39 = expr.mul %m0_38, %m0_38 : tensor<2xf64>
  %m0_40 = expr.mul %m0_39, %m0_39 : tensor<2xf64>
  %m0_41 = expr.mul %m0_40, %m0_40 : tensor<2xf64>
  %m0_42 = expr.mul %m0_41, %m0_41 : tensor<2xf64>
  %m0_43 = expr.mul %m0_42, %m0_42 : tensor<2xf64>
  %m0_44 = expr.mul %m0_43, %m0_43 : tensor<2xf64>
  %m0_45 = expr.mul %m0_44, %m0_44 : tensor<2xf64>
  %m0_46 = expr.mul %m0_45, %m0_45 : tensor<2xf64>
  %m0_47 = expr.mul %m0_46, %m0_46 : tensor<2xf64>
  %m0_48 = expr.mul %m0_47, %m0_47 : tensor<2xf64>
  %m0_49 = expr.mul %m0_48, %m0_48 : tensor<2xf64>
  %m0_50 = expr.mul %m0_49, %m0_49 : tensor<2xf64>
  %m0_51 = expr.mul %m0_50, %m0_50 : tensor<2xf64>
  %m0_52 = expr.mul %m0_51, %m0_51 : tensor<2xf64>
  %m0_53 = expr.mul %m0_52, %m0_52 : tensor<2xf64>
  %m0_54 = expr.mul %m0_53, %m0_53 : tensor<2xf64>
  %m0_55 = expr.mul %m0_54, %m0_54 : tensor<2xf64>
  %m0_56 = expr.mul %m0_55, %m0_55 : tensor<2xf64>
  %m0_57 = expr.mul %m0_56, %m0_56 : tensor<2xf64>
  %m0_58 = expr.mul %m0_57, %m0_57 : tensor<2xf64>
  %m0_59 = expr.mul %m0_58, %m0_58 : tensor<2xf64>
  %m0_60 = expr.mul %m0_59, %m0_59 : tensor<2xf64>
  %m0_61 = expr.mul %m0_60, %m0_60 : tensor<2xf64>
  %m0_62 = expr.mul %m0_61, %m0_61 : tensor<2xf64>
  %m0_63 = expr.mul %m0_62, %m0_62 : tensor<2xf64>
  %m0_64 = expr.mul %m0_63, %m0_63 : tensor<2xf64>
  %m0_65 = expr.mul %m0_64, %m0_64 : tensor<2xf64>
  %m0_66 = expr.mul %m0_65, %m0_65 : tensor<2xf64>
  %m0_67 = expr.mul %m0_66, %m0_66 : tensor<2xf64>
  %m0_68 = expr.mul %m0_67, %m0_67 : tensor<2xf64>
  %m0_69 = expr.mul %m0_68, %m0_68 : tensor<2xf64>
  %m0_70 = expr.mul %m0_69, %m0_69 : tensor<2xf64>
  %m0_71 = expr.mul %m0_70, %m0_70 : tensor<2xf64>
  %m0_72 = expr.mul %m0_71, %m0_71 : tensor<2xf64>
  %m0_73 = expr.mul %m0_72, %m0_72 : tensor<2xf64>
  %m0_74 = expr.mul %m0_73, %m0_73 : tensor<2xf64>
  %m0_75 = expr.mul %m0_74, %m0_74 : tensor<2xf64>
  %m0_76 = expr.mul %m0_75, %m0_75 : tensor<2xf64>
  %m0_77 = expr.mul %m0_76, %m0_76 : tensor<2xf64>
  %m0_78 = expr.mul %m0_77, %m0_77 : tensor<2xf64>
  %m0_79 = expr.mul %m0_78, %m0_78 : tensor<2xf64>
  %m0_80 = expr.mul %m0_79, %m0_79 : tensor<2xf64>
  %m0_81 = expr.mul %m0_80, %m0_80 : tensor<2xf64>
  %m0_82 = expr.mul %m0_81, %m0_81 : tensor<2xf64>
  %m0_83 = expr.mul %m0_82, %m0_82 : tensor<2xf64>
  %m0_84 = expr.mul %m0_83, %m0_83 : tensor<2xf64>
  %m0_85 = expr.mul %m0_84, %m0_84 : tensor<2xf64>
  %m0_86 = expr.mul %m0_85, %m0_85 : tensor<2xf64>
  %m0_87 = expr.mul %m0_86, %m0_86 : tensor<2xf64>
  %m0_88 = expr.mul %m0_87, %m0_87 : tensor<2xf64>
  %m0_89 = expr.mul %m0_88, %m0_88 : tensor<2xf64>
  %m0_90 = expr.mul %m0_89, %m0_89 : tensor<2xf64>
  %m0_91 = expr.mul %m0_90, %m0_90 : tensor<2xf64>
  %m0_92 = expr.mul %m0_91, %m0_91 : tensor<2xf64>
  %m0_93 = expr.mul %m0_92, %m0_92 : tensor<2xf64>
  %m0_94 = expr.mul %m0_93, %m0_93 : tensor<2xf64>
  %m0_95 = expr.mul %m0_94, %m0_94 : tensor<2xf64>
  %m0_96 = expr.mul %m0_95, %m0_95 : tensor<2xf64>
  %m0_97 = expr.mul %m0_96, %m0_96 : tensor<2xf64>
  %m0_98 = expr.mul %m0_97, %m0_97 : tensor<2xf64>
  %m0_99 = expr.mul %m0_98, %m0_98 : tensor<2xf64>
  %m0_100 = expr.mul %m0_99, %m0_99 : tensor<2xf64>
  %m0_101 = expr.mul %m0_100, %m0_100 : tensor<2xf64>
  %m0_102 = expr.mul %m0_101, %m0_101 : tensor<2xf64>
  %m0_103 = expr.mul %m0_102, %m0_102 : tensor<2xf64>
  %m0_104 = expr.mul %m0_103, %m0_103 : tensor<2xf64>
  %m0_105 = expr.mul %m0_104, %m0_104 : tensor<2xf64>
  %m0_106 = expr.mul %m0_105, %m0_105 : tensor<2xf64>
  %m0_107 = expr.mul %m0_106, %m0_106 : tensor<2xf64>
  %m0_108 = expr.mul %m0_107, %m0_107 : tensor<2xf64>
  %m0_109 = expr.mul %m0_108, %m0_108 : tensor<2xf64>
  %m0_110 = expr.mul %m0_109, %m0_109 : tensor<2xf64>
  %m0_111 = expr.mul %m0_110, %m0_110 : tensor<2xf64>
  %m0_112 = expr.mul %m0_111, %m0_111 : tensor<2xf64>
  %m0_113 = expr.mul %m0_112, %m0_112 : tensor<2xf64>
  %m0_114 = expr.mul %m0_113, %m0_113 : tensor<2xf64>
  %m0_115 = expr.mul %m0_114, %m0_114 : tensor<2xf64>
  %m0_116 = expr.mul %m0_115, %m0_115 : tensor<2xf64>
  %m0_117 = expr.mul %m0_116, %m0_116 : tensor<2xf64>
  %m0_118 = expr.mul %m0_117, %m0_117 : tensor<2xf64>
  %m0_119 = expr.mul %m0_118, %m0_118 : tensor<2xf64>
  %m0_120 = expr.mul %m0_119, %m0_119 : tensor<2xf64>
  %m0_121 = expr.mul %m0_120, %m0_120 : tensor<2xf64>
  %m0_122 = expr.mul %m0_121, %m0_121 : tensor<2xf64>
  %m0_123 = expr.mul %m0_122, %m0_122 : tensor<2xf64>
  %m0_124 = expr.mul %m0_123, %m0_123 : tensor<2xf64>
  %m0_125 = expr.mul %m0_124, %m0_124 : tensor<2xf64>
  %m0_126 = expr.mul %m0_125, %m0_125 : tensor<2xf64>
  %m0_127 = expr.mul %m0_126, %m0_126 : tensor<2xf64>
  %m0_128 = expr.mul %m0_127, %m0_127 : tensor<2xf64>
  %m0_129 = expr.mul %m0_128, %m0_128 : tensor<2xf64>
  %m0_130 = expr.mul %m0_129, %m0_129 : tensor<2xf64>
  %m0_131 = expr.mul %m0_130, %m0_130 : tensor<2xf64>
  %m0_132 = expr.mul %m0_131, %m0_131 : tensor<2xf64>
  %m0_133 = expr.mul %m0_132, %m0_132 : tensor<2xf64>
  %m0_134 = expr.mul %m0_133, %m0_133 : tensor<2xf64>
  %m0_135 = expr.mul %m0_134, %m0_134 : tensor<2xf64>
  %m0_136 = expr.mul %m0_135, %m0_135 : tensor<2xf64>
  %m0_137 = expr.mul %m0_136, %m0_136 : tensor<2xf64>
  %m0_138 = expr.mul %m0_137, %m0_137 : tensor<2xf64>
  %m0_139 = expr.mul %m0_138, %m0_138 : tensor<2xf64>
  %m0_140 = expr.mul %m0_139, %m0_139 : tensor<2xf64>
  %m0_141 = expr.mul %m0_140, %m0_140 : tensor<2xf64>
  %m0_142 = expr.mul %m0_141, %m0_141 : tensor<2xf64>
  %m0_143 = expr.mul %m0_142, %m0_142 : tensor<2xf64>
  %m0_144 = expr.mul %m0_143, %m0_143 : tensor<2xf64>
  %m0_145 = expr.mul %m0_144, %m0_144 : tensor<2xf64>
  %m0_146 = expr.mul %m0_145, %m0_145 : tensor<2xf64>
  %m0_147 = expr.mul %m0_146, %m0_146 : tensor<2xf64>
  %m0_148 = expr.mul %m0_147, %m0_147 : tensor<2xf64>
  %m0_149 = expr.mul %m0_148, %m0_148 : tensor<2xf64>
  expr.return %m0_149 : tensor<2xf64>
}
