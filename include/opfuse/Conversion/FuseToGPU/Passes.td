//===- Passes.td - fuse to GPU conversion ------------------*- tablegen -*-===//
//
// Turns every fuse.group (and every lone elementwise op) into a gpu.func.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_CONVERSION_FUSETOGPU_PASSES_TD
#define OPFUSE_CONVERSION_FUSETOGPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertFuseToGPU : Pass<"convert-fuse-to-gpu", "mlir::ModuleOp"> {
  let summary = "Emit one GPU kernel per fuse.group with the loop, row or matmul emitter";
  let description = [{
    Every `fuse.group`, and every elementwise op, reduction or matmul left
    outside a group (wrapped in a group of one first), becomes a `gpu.func`
    in the `gpu.module @opfuse_kernels`, targeted at NVVM: a group holding a
    matmul with the matmul emitter, one holding a reduction with the row
    emitter, any other with the loop emitter. The group gets the attributes
    `fuse.kernel` (the kernel's symbol), `fuse.grid` and `fuse.block` (its
    launch configuration) and, when the kernel uses dynamic shared memory,
    `fuse.shared_bytes`; the launch plan is read from them.

    The loop emitter gives each thread vectors of consecutive output
    elements: 16 bytes of the widest element type in the kernel (4 f32 or 8
    bf16) when the element count is a multiple of that, otherwise one
    element. With `vectors-per-thread` = 2 (the default) each thread owns
    two vectors a block apart and issues all their loads before any
    arithmetic, when the vectors fill whole blocks; otherwise one vector,
    guarded against the last partial block. (On an H200, 2 moves the
    bias+GELU+residual kernel from 89% to 98.6% of copy bandwidth; 4 is
    slower again: docs/benchmarks.md.)
    An input with as many elements as the output is loaded at the vector's
    linear index (a reshape inside the group changes nothing for it). A
    smaller input is read in the layout of the full-size value it is
    combined with: contiguously when its innermost dimension matches that
    layout's, as one broadcast scalar when it is 1 (a column or a scalar),
    after one index computation per vector and layout with compile-time
    divisors. f16 and bf16 values are computed in f32 and
    rounded when stored, or where a `fuse.cast` asks for it. Kernel
    arguments are bare global pointers, inputs first, then outputs.

    The row emitter splits the reductions' iteration space into rows (the
    trailing, reduced dimensions) and gives each row a power-of-two segment
    of threads: part of a warp for short rows, a warp, or up to a block of
    1024, so that a thread holds at most `row-elements-per-thread` elements
    (16-byte vectors a segment apart, coalesced); several rows share a block
    of `block-size` threads when they are short. A thread loads its part of
    the row once and keeps it in registers; each reduction folds it
    pairwise, combines the segment with xor shuffles and, across warps,
    through one shared-memory slot per warp and one barrier; per-row values
    (a mean, an rsqrt) are computed once per thread; the epilogue is
    computed from the same registers and stored as vectors, a per-row
    output by the row's first thread. Reductions that do not depend on one
    another share one fold and one barrier. Rows longer than 1024 threads
    hold are streamed: one pass over the row per level of reductions and
    one for the outputs. Vector slots past the row's end read a vector inside it and
    fold the identity; threads past the last row recompute it and store
    nothing, so every thread reaches every shuffle and barrier. A lone
    reduction over leading dimensions maps the other way round: a warp's
    lanes take 32 neighbouring results (neighbouring addresses), up to 32
    warps split each result's reduced elements, and the partials meet in
    shared memory.

    The matmul emitter computes a bf16 or f16 `fuse.matmul` (batch
    dimensions broadcast, either operand transposed) on tensor cores. A
    block of `WM x WN` warps owns a `BM x BN` output tile (`matmul-tiling`
    = `BMxBNxBK/WMxWN/S`); it walks K in `BK` slices through `S` stages of
    dynamic shared memory, copying each slice with `cp.async` (16-byte
    chunks, 8 or 4 bytes when the operand's rows are not a multiple of 8
    elements, plain loads when they are odd) `S - 1` slices ahead of the one
    multiplied; chunks are XOR-swizzled so that copies and `ldmatrix` reads
    are free of bank conflicts. Each warp multiplies with `mma.sync`
    m16n8k16 into f32 accumulators in registers (`ldmatrix.trans` for
    operands stored with M or N contiguous). The epilogue runs the group's
    elementwise ops (bias, GELU, SiLU, residual, cast) on the accumulators,
    reading other inputs at the broadcast index, and stores each output
    once. Chunks outside the matrices are zero-filled and stores past M or
    N are skipped, so no shape needs to be a multiple of the tile. Blocks
    visit tiles in groups of 8 tile-rows for L2 reuse.

    The tiling of each GEMM kernel comes from its group's
    `fuse.matmul_tiling` attribute when it has one (`opt-fuse --autotune`
    writes it from measurements), else from `matmul-tiling`; `auto` ranks
    the tilings that fit with the tile model (docs/cost-model.md: tiles in
    waves over the SMs, each costing its tensor-core FLOPs or its operands'
    L2 traffic, plus the epilogue's stores) and takes the fastest. Every
    GEMM group is left with `fuse.matmul_tiling` naming the tiling used.
    With warpgroup MMA (sm_90) a block's warpgroups each own 64 rows of the
    tile and issue `wgmma.mma_async` m64nNk16 from 128-byte-swizzled shared
    memory, persistently (one block per resident slot on the `target`
    walks every grid-th tile and copies its next tile's first slices
    before the current tile's epilogue). With `tma` (the default) one
    thread copies each slice with `cp.async.bulk.tensor` through a tensor
    map per operand (a box of 64 K by the tile's rows for a K-contiguous
    operand, 64-column panels of BK rows for an M/N-contiguous one, a
    batch coordinate when the operand holds one matrix per batch element),
    which writes the swizzled layout the wgmma descriptors read and zeros
    past the matrix edges; an mbarrier per stage (after the stages in
    shared memory) counts the stage's bytes, and every thread waits on its
    phase. The group gets `fuse.tensor_maps` ({input, dims, strides, box}
    per map), the kernel one pointer parameter per map after its outputs,
    and the runtime encodes the maps. Operands whose rows are not 16-byte
    aligned, batches that are neither broadcast nor stored whole, and
    conv2d's gathered input keep the `cp.async` copies; f32 operands take an mma.sync
    tiling, as TF32 MMAs with
    `allow-tf32` and as FMAs otherwise. A `fuse.conv2d` (NHWC, HWCF filters)
    is the same kernel as an implicit GEMM whose A copies gather the input
    window of each output pixel.

    A `fuse.reshape` outside a group needs no kernel (its result aliases its
    input), and a dense or resource `fuse.constant` becomes an initialised
    buffer of the launch plan. softmax, layer_norm and rms_norm must be
    decomposed first (`fuse-decompose`; the pipeline does). Every other op
    (grouped conv2d, transpose, slice, concat, gather, collectives) fails
    with `'<op>' is not yet supported for GPU emission` at its location.

    ```mlir
    %0 = fuse.group (%x) : (tensor<1024xf32>) -> tensor<1024xf32> {...}
    // becomes
    %0 = fuse.group (%x) {fuse.kernel = @opfuse_kernels::@f_k0,
                          fuse.grid = array<i64: 1, 1, 1>,
                          fuse.block = array<i64: 256, 1, 1>} ...
    gpu.module @opfuse_kernels [#nvvm.target<chip = "sm_90", O = 3>] {
      gpu.func @f_k0(%in0: !llvm.ptr<1>, %out0: !llvm.ptr<1>) kernel {...}
    }
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "The SM architecture kernels are compiled for">,
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block">,
    Option<"vectorsPerThread", "vectors-per-thread", "int64_t",
           /*default=*/"2",
           "Vectors each thread owns when they fill whole blocks; all their "
           "loads are issued before any arithmetic">,
    Option<"rowElementsPerThread", "row-elements-per-thread", "int64_t",
           /*default=*/"32",
           "Elements of its row a thread of a row-reduction kernel holds in "
           "registers at most; longer rows get more threads, up to 1024, "
           "and are streamed beyond that">,
    Option<"matmulTiling", "matmul-tiling", "std::string",
           /*default=*/"\"auto\"",
           "Tiles of the tensor-core GEMM kernels as [wgmma:]BMxBNxBK/WMxWN/S: "
           "block tile, warps (warpgroups with wgmma) per block, "
           "shared-memory stages; auto asks the tile model for each GEMM "
           "(warpgroup MMA on sm_90, mma.sync elsewhere). A group's own "
           "fuse.matmul_tiling attribute overrides it">,
    Option<"useTma", "tma", "bool", /*default=*/"true",
           "Copy the operands of warpgroup-MMA GEMMs with TMA (one thread, "
           "tensor maps the host encodes, an mbarrier per stage) where both "
           "allow it; false keeps every thread's cp.async copies">,
    Option<"warpSpecialize", "warp-specialize", "bool", /*default=*/"true",
           "Warp-specialise the persistent TMA GEMM kernels of two MMA "
           "warpgroups: a producer warpgroup streams the slices and stages "
           "are released through mbarriers; false keeps the cooperative "
           "kernel, whose MMA warpgroups also issue the copies">,
    Option<"pingPong", "ping-pong", "bool", /*default=*/"false",
           "Ping-pong consumers for TMA GEMM kernels of two MMA warpgroups "
           "and at most 128 columns (warp-specialised even with "
           "warp-specialize=false): each warpgroup owns every other tile, "
           "so one's epilogue runs under the other's MMAs">,
    Option<"targetSpec", "target", "std::string", /*default=*/"\"h200\"",
           "GPU the tile model predicts on: a100, h100, h200 or a target "
           "JSON file">,
    Option<"allowTF32", "allow-tf32", "bool", /*default=*/"false",
           "Run f32 matmuls and convolutions on tensor cores as TF32 "
           "(inputs rounded to 10-bit mantissas); otherwise with f32 FMAs">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::NVVM::NVVMDialect"
  ];
}

def ApproximateMath : Pass<"fuse-approximate-math"> {
  let summary = "Polynomial approximations for math ops when libdevice is absent";
  let description = [{
    Without a CUDA toolkit there is no libdevice, and math ops lowered by
    convert-gpu-to-nvvm would leave `__nv_*` externs that ptxas cannot
    resolve. This pass expands `math.powf` and friends into simpler ops and
    replaces `exp`, `log`, `tanh`, `erf` and the other transcendentals with
    MLIR's f32 polynomial approximations (errors of a few ulp; see
    docs/numerics.md), so the kernels need no library. The pipeline runs it
    only when no toolkit is found or `--cuda-toolkit=none` is given.

    ```mlir
    %y = math.exp %x : f32
    // becomes a range reduction and a polynomial in arith ops
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // OPFUSE_CONVERSION_FUSETOGPU_PASSES_TD
