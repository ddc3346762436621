//===- FuseDialect.td - The fuse dialect definition --------*- tablegen -*-===//
//
// The `fuse` dialect: tensor operators on static shapes, classified as
// compute-, memory- or communication-bound, and the `fuse.group` region that
// becomes one GPU kernel.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_FUSEDIALECT_TD
#define OPFUSE_DIALECT_FUSE_IR_FUSEDIALECT_TD

include "mlir/IR/OpBase.td"

def Fuse_Dialect : Dialect {
  let name = "fuse";
  let cppNamespace = "::opfuse::fuse";
  let summary = "Tensor operators for graph-level fusion on GPUs";
  let description = [{
    The `fuse` dialect models a model graph as value-semantic operators on
    statically shaped, ranked tensors (element types f32, f16, bf16, i32, i64
    and i1). Every operator belongs to exactly one of the three classes that
    decide how it is optimised on a GPU, carried as a trait:

    * `ComputeBound` — matmul and conv2d: limited by tensor-core or FMA
      throughput, fused with an elementwise epilogue;
    * `MemoryBound` — elementwise ops, reductions, normalisations and data
      movement: limited by bytes through device memory, fused into chains;
    * `CommunicationBound` — all_reduce, all_gather and reduce_scatter:
      limited by link bandwidth between devices.

    The structural ops `fuse.group` and `fuse.yield` carry no class: a group
    takes the class of the operators inside it.

    Every operator implements `CostInterface` (FLOPs, bytes read and written
    for its static shapes), which the cost model and the fusion passes use.

    Example:

    ```mlir
    func.func @bias_relu(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
      %0 = fuse.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
      %1 = fuse.relu %0 : tensor<4x8xf32>
      return %1 : tensor<4x8xf32>
    }
    ```
  }];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Adds the attributes of FuseAttributes.td (defined beside their
    /// storage classes).
    void registerAttributes();
  }];
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;

  // The attributes passes exchange, each verified where it is set
  // (verifyOperationAttribute): no pass spells their names. The typed ones
  // are defined in FuseAttributes.td.
  let discardableAttrs = (ins
    // On the module: the GPU target (fuse-set-target).
    "::opfuse::fuse::TargetAttr":$target,
    // On a function: its buffer plan (fuse-plan-memory).
    "::opfuse::fuse::MemoryPlanAttr":$memory,
    // On a kernel (a group, or a lone op before it is wrapped): each
    // result's arena offset, -1 outside the arena (fuse-plan-memory).
    "::mlir::DenseI64ArrayAttr":$offsets,
    // On a GEMM group or a lone contraction: its tiling (the user, or
    // --autotune), and on every GEMM group after emission.
    "::opfuse::fuse::MatmulTilingAttr":$matmul_tiling,
    // On a group after convert-fuse-to-gpu: the kernel's symbol, launch
    // grid and block (x, y, z), dynamic shared memory, GEMM schedule and
    // TMA tensor maps (#fuse.tensor_map, in parameter order).
    "::mlir::SymbolRefAttr":$kernel,
    "::mlir::DenseI64ArrayAttr":$grid,
    "::mlir::DenseI64ArrayAttr":$block,
    "::mlir::IntegerAttr":$shared_bytes,
    "::opfuse::fuse::GemmScheduleAttr":$gemm_schedule,
    "::mlir::ArrayAttr":$tensor_maps,
    // On a group whose blocks split their work (split-K GEMMs, split-key
    // attention): [splits, counters, workspace bytes] of the workspace
    // and counters the runtime passes after the buffers.
    "::mlir::DenseI64ArrayAttr":$split_workspace,
    // On a group whose kernel waits for the kernels before it
    // (griddepcontrol.wait) before it reads their outputs or writes: the
    // runtime may launch it early (programmatic dependent launch).
    "::mlir::UnitAttr":$early_launch,
    // On a fuse.add that sums the products of a decomposed convolution
    // (fuse-decompose's windows): a kernel may contract an f32 product
    // operand and the sum into one FMA, as the convolution's GEMM kernels
    // do, instead of rounding the product first.
    "::mlir::UnitAttr":$contract,
    // On a group whose kernel is an identical earlier group's
    // (fuse-dedup-kernels): the name its launch step keeps, while
    // `kernel` names the function it launches.
    "::mlir::StringAttr":$step_name,
    // On the chunks of a GEMM and its all_reduce that
    // fuse-window-collectives split so that one chunk's all_reduce runs
    // while the next chunk multiplies: on each all_reduce, the SMs (NCCL
    // CTAs) it may use on a stream of its own; on each contraction (and
    // the GEMM group formed from it), the SMs its grid leaves free for
    // them.
    "::mlir::IntegerAttr":$overlap_sms,
    // On a function argument: the axis along which the devices of an SPMD
    // run (--devices N) each hold one slice of the global tensor; an
    // argument without it is replicated (every device holds all of it).
    "::mlir::IntegerAttr":$shard,
    // On a function argument or result: its name in the graph it was
    // imported from (an ONNX input or output name).
    "::mlir::StringAttr":$name
  );
}

class Fuse_Op<string mnemonic, list<Trait> traits = []>
    : Op<Fuse_Dialect, mnemonic, traits>;

#endif // OPFUSE_DIALECT_FUSE_IR_FUSEDIALECT_TD
