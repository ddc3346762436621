//===- Passes.td - Cost analysis passes --------------------*- tablegen -*-===//
//
// Passes that report what the cost model thinks of a function.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_ANALYSIS_PASSES_TD
#define OPFUSE_ANALYSIS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FusePrintCost : Pass<"fuse-print-cost", "mlir::func::FuncOp"> {
  let summary = "Remark on every kernel's FLOPs, bytes, bound kind and "
                "predicted time";
  let description = [{
    Runs the roofline cost model (docs/cost-model.md) over a function and
    emits one remark per op that would run as a kernel (every op but
    constants, reshapes and the return; a `fuse.group` counts as one
    kernel). Each remark gives the operator class from the op's trait, the
    bound kind the roofline picks for the target and these shapes, FLOPs,
    device-memory bytes, arithmetic intensity, the ridge point of the op's
    FLOP/s ceiling and the predicted latency including the launch overhead.
    The class and the bound can differ: a matmul is compute-class, but a
    small one is memory-bound.

    The IR is not changed. Used by lit to pin the model's numbers, and by
    researchers to see what the model thinks of a graph before fusing it.

    Example, on the H200 datasheet target:

    ```mlir
    %0 = fuse.matmul %a, %b : (tensor<1024x1024xf32>, tensor<1024x1024xf32>)
                              -> tensor<1024x1024xf32>
    // remark: kernel @f_k0 (matmul): class compute, bound compute;
    //   2147483648 FLOPs, 12582912 bytes, 170.67 FLOP/B (ridge 13.14);
    //   predicted 42.06 us (compute 40.06, memory 1.23 from L2, launch 2.00)
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"h200\"",
           "GPU target: a built-in name (a100, h100, h200) or a target "
           "JSON file">,
  ];
}

#endif // OPFUSE_ANALYSIS_PASSES_TD
