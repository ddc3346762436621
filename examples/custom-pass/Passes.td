//===- Passes.td - The sink-scale-past-matmul pass ---------*- tablegen -*-===//

#ifndef SINK_SCALE_PASSES_TD
#define SINK_SCALE_PASSES_TD

include "mlir/Pass/PassBase.td"

def SinkScalePastMatmul : Pass<"sink-scale-past-matmul", "mlir::func::FuncOp"> {
  let summary = "Move a power-of-two scale of a matmul operand to its result";
  let description = [{
    `matmul(x * c, w)` becomes `matmul(x, w) * c` when `c` is a splat
    constant that is a power of two (scaling by one commutes with rounding,
    so the result is the same bit for bit) and `x * c` has no other reader.
    opfuse's fusion leaves the first form as two kernels (the scale costs a
    pass over `x`); the second is one, the scale in the GEMM's epilogue.
  }];
}

#endif // SINK_SCALE_PASSES_TD
