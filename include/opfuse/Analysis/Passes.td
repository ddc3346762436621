//===- Passes.td - Cost analysis passes --------------------*- tablegen -*-===//
//
// The GPU target of a module, and what the cost model thinks of a
// function on it.
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

    The IR is not changed. The target is the module's `fuse.target`
    (`fuse-set-target`), by default the H200 datasheet:

    ```mlir
    %0 = fuse.matmul %a, %b : (tensor<1024x1024xf32>, tensor<1024x1024xf32>)
                              -> tensor<1024x1024xf32>
    // remark: kernel @f_k0 (matmul): class compute, bound compute;
    //   2147483648 FLOPs, 12582912 bytes, 170.67 FLOP/B (ridge 13.14);
    //   predicted 42.06 us (compute 40.06, memory 1.23 from L2, launch 2.00)
    ```
  }];
}

def FuseSetTarget : Pass<"fuse-set-target", "mlir::ModuleOp"> {
  let summary = "Set the GPU target every later pass compiles and predicts for";
  let description = [{
    Loads the target (a built-in name: a100, h100, h200; or a target file,
    docs/target-format.md) once and writes it on the module as
    `fuse.target`, a `#fuse.target` holding the chip and every number of
    the cost and tile models. Fusion, the cost passes and
    `convert-fuse-to-gpu` read it from there; a module without one is
    compiled for the built-in h200. `chip` overrides the target's SM
    architecture (compiling for an sm_80 part with H200 numbers, say). An
    unknown name, an unreadable or invalid file, or a chip that is not
    `sm_NN` fails the pass before it runs.

    ```mlir
    module {...}
    // with target=a100 becomes
    module attributes {fuse.target = #fuse.target<name = "a100",
        description = "NVIDIA A100 SXM 80GB", chip = "sm_80", ...>} {...}
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"h200\"",
           "GPU target: a built-in name (a100, h100, h200) or a target "
           "JSON file">,
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "SM architecture of the kernels (sm_80, sm_90, ...); empty: the "
           "target's">,
  ];
  let dependentDialects = ["::opfuse::fuse::FuseDialect"];
}

#endif // OPFUSE_ANALYSIS_PASSES_TD
