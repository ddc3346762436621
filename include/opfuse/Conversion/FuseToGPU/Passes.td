//===- Passes.td - fuse to GPU conversion ------------------*- tablegen -*-===//
//
// Turns every fuse.group into a gpu.func, and the math it leaves into what
// the NVVM lowering takes without libdevice.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_CONVERSION_FUSETOGPU_PASSES_TD
#define OPFUSE_CONVERSION_FUSETOGPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertFuseToGPU : Pass<"convert-fuse-to-gpu", "mlir::ModuleOp"> {
  let summary = "Emit one GPU kernel per fuse.group through the emitter registry";
  let description = [{
    Every `fuse.group` becomes a `gpu.func` in the `gpu.module
    @opfuse_kernels`, targeted at the chip of the module's `fuse.target`
    (`fuse-set-target`; sm_90 by default). The first emitter of the
    registry that claims the group compiles it: the row emitter a group
    with a reduction, the GEMM emitter one with a matmul or conv2d, the
    loop emitter the rest (docs/architecture.md says how each works,
    docs/adding-an-emitter.md how to add one). The emitter first
    configures the kernel (a GEMM's tiling, schedule and tensor maps are
    recorded on the group as `fuse.matmul_tiling` and `fuse.gemm_schedule`)
    and then emits it; the group gets `fuse.kernel`, `fuse.grid`,
    `fuse.block` and, where used, `fuse.shared_bytes` and
    `fuse.tensor_maps`, which the launch plan is read from. Ops outside a
    group must be wrapped first (`fuse-outline-kernels`); a `fuse.reshape`
    needs no kernel and a `fuse.constant` becomes an initialised buffer.
    What no emitter compiles fails at its location with the reason.

    ```mlir
    %0 = fuse.group (%x) : (tensor<1024xf32>) -> tensor<1024xf32> {...}
    // becomes
    %0 = fuse.group (%x) {fuse.block = array<i64: 256, 1, 1>,
                          fuse.grid = array<i64: 1, 1, 1>,
                          fuse.kernel = @opfuse_kernels::@f_k0} ...
    gpu.module @opfuse_kernels [#nvvm.target<chip = "sm_90", O = 3>] {
      gpu.func @f_k0(%in0: !llvm.ptr<1>, %out0: !llvm.ptr<1>) kernel {...}
    }
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block of the loop and row kernels: a multiple of 32 "
           "from 32 to 1024">,
    Option<"vectorsPerThread", "vectors-per-thread", "int64_t",
           /*default=*/"2",
           "16-byte vectors each thread of a loop kernel owns (1, 2 or 4), "
           "all loaded before any arithmetic, when the kernel still fills "
           "every thread slot of the target's SMs at that many and its last "
           "wave of blocks about as well as with one; other kernels keep "
           "one">,
    Option<"windowRows", "window-rows", "int64_t", /*default=*/"0",
           "Neighbouring outputs along a row each thread of a view kernel computes where the kernel reads windows of one input at offsets along that row (a depthwise convolution's taps), so that the loads they share are read once: 0 (default) lets the emitter choose 4 or 2 by the window columns a thread holds, where they divide the row, or 1 (none); 1, 2, 4 or 8 force that many (never more than the row holds; a ragged row's last thread computes fewer)">,
    Option<"rowElementsPerThread", "row-elements-per-thread", "int64_t",
           /*default=*/"32",
           "Elements of its row a thread of a row-reduction kernel holds in "
           "registers at most (8, 16, 32 or 64); longer rows get more "
           "threads, up to 1024, and are streamed beyond that">,
    Option<"matmulTiling", "matmul-tiling", "std::string",
           /*default=*/"\"auto\"",
           "Tiles of the tensor-core GEMM kernels as "
           "[wgmma:]BMxBNxBK/WMxWN/S[/kP]: block tile, warps (warpgroups "
           "with wgmma) per block, shared-memory stages, K split among P "
           "blocks per tile (wgmma: into equal parts); auto asks the tile model for "
           "each GEMM (warpgroup MMA on sm_90 for 16-bit operands, mma.sync "
           "elsewhere and for f32, split-K where the tiles leave SMs idle). "
           "A group's own fuse.matmul_tiling attribute overrides it">,
    Option<"attentionTiling", "attention-tiling", "std::string",
           /*default=*/"\"auto\"",
           "Tiles of the fused attention kernel as "
           "[wgmma:|tma:]BMxBN[/kS|/persistent]: query rows per block (64 "
           "or 128; "
           "192 with tma: at head dims up to 64, three consumer "
           "warpgroups) and "
           "keys per step (32, 64 or 128), on mma.sync with 4 warps or, "
           "with wgmma: (sm_90, head dims multiples of 64, BN 64 or 128), "
           "a warpgroup per 64 rows, or with tma: the same fed by a TMA "
           "producer warpgroup through 2-4 stages, the compute warpgroups "
           "taking turns (ping-pong); /kS splits each query tile's keys "
           "among S blocks (1 to 64; tma: needs no causal mask and a key "
           "tile a split), the last to finish "
           "combining their partial rows; /persistent (tma: with 128 or "
           "192 rows) launches one block an SM, each taking query tiles "
           "in turn (grid-stride), where the query tiles outnumber the "
           "SMs; auto takes tma where the "
           "operands' tensor maps exist and tma is on (128 rows, 64 for 64 "
           "queries or fewer, 192 at head dims up to 64 where fewer waves "
           "or diagonal tiles do not cost more than their faster rows "
           "save; 128 keys), else wgmma (128 keys for head "
           "dims over 64, else 64) and otherwise mma.sync (64 keys, 32 for "
           "head dims over 64), and for 64 queries or fewer whose query "
           "tiles are fewer than the SMs splits the keys, on tma where it "
           "can without a causal mask, else on the cp.async form (wgmma "
           "with 64 keys, or mma.sync): as many splits as resident blocks "
           "allow, two key tiles or more each; tma blocks persist without "
           "a causal or additive mask up to 4096 keys">,
    Option<"useTma", "tma", "bool", /*default=*/"true",
           "Copy the operands of warpgroup-MMA GEMMs and of auto-tiled "
           "attention kernels with TMA (one thread, tensor maps the host "
           "encodes, mbarriers per stage) where they allow it; false keeps "
           "every thread's cp.async copies">,
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
    Option<"vectorStores", "gemm-vector-stores", "bool", /*default=*/"true",
           "Store GEMM epilogue results 16 bytes a thread where every "
           "output is 16-bit and its rows and slices are 8-element aligned "
           "(the four threads sharing a row trade their pairs with "
           "shuffles); false stores each thread's pairs (4 bytes)">,
    Option<"earlyLaunch", "early-launch", "bool", /*default=*/"true",
           "On sm_90 and later, make every kernel safe to launch while the "
           "kernel before it still runs (programmatic dependent launch): it "
           "waits for the grids before it (griddepcontrol.wait) before it "
           "reads their outputs or writes, then lets the next kernel launch "
           "(griddepcontrol.launch_dependents); mma.sync GEMM kernels first "
           "copy their first slices of operands that are the function's "
           "arguments (weights), and let the next kernel launch after their "
           "main loop. The group gets fuse.early_launch, which the launch plan "
           "carries as early_launch">,
    Option<"maxGridBlocks", "max-grid-blocks", "int64_t",
           /*default=*/"2147483647",
           "The most blocks a loop, view, transpose or row kernel's grid "
           "gets (1 to 2^31-1, CUDA's limit): a kernel with more blocks of "
           "work walks them in a grid-stride loop">,
    Option<"allowTF32", "allow-tf32", "bool", /*default=*/"false",
           "Run f32 matmuls and convolutions on tensor cores as TF32 "
           "(inputs rounded to 10-bit mantissas); otherwise with f32 FMAs">,
    Option<"numerics", "numerics", "std::string", /*default=*/"\"default\"",
           "default: f16 and bf16 values inside a kernel stay in f32 and "
           "round where they are stored or cast, and a row kernel divides "
           "by a per-row value through its reciprocal (IEEE's bits but "
           "below 2^-100); strict: every op's f16 or bf16 result rounds to "
           "its type, as the unfused model computes, and every division is "
           "div.rn">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::vector::VectorDialect"
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
    only when no toolkit is found or `--cuda-toolkit=none` is given. The
    emitters write `fuse.erf` (and GELU's erf) as opfuse's own branch-free
    formula, so erf reaches this pass only as a `math.erf` written by hand.

    ```mlir
    %y = math.exp %x : f32
    // becomes a range reduction and a polynomial in arith ops
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def DedupKernels : Pass<"fuse-dedup-kernels", "mlir::ModuleOp"> {
  let summary = "Launch one kernel for every group that emitted an identical one";
  let description = [{
    Repeated layers (the blocks of a transformer, the residual blocks of a
    ResNet stage) emit kernels that differ in their name only. This pass
    keeps the first `gpu.func` of each set of identical ones in
    `@opfuse_kernels` (identical: the same body, argument types and
    attributes, compared on their generic printed form) and points the
    other groups' `fuse.kernel` at it, so LLVM, the NVPTX backend and ptxas
    compile it once. Each redirected group keeps the name of its launch
    step in `fuse.step_name`: the launch plan, the report and `--bench`
    still list every kernel under its own name, with the PTX function it
    launches as the step's `entry`.

    ```mlir
    %0 = fuse.group ... {fuse.kernel = @opfuse_kernels::@main_k1}
    %1 = fuse.group ... {fuse.kernel = @opfuse_kernels::@main_k3}
    // main_k3 had main_k1's body: it is erased, and
    %1 = fuse.group ... {fuse.kernel = @opfuse_kernels::@main_k1,
                         fuse.step_name = "main_k3"}
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def SerializeKernels : Pass<"fuse-serialize-kernels", "mlir::ModuleOp"> {
  let summary = "Serialise the kernel modules to PTX, working around a ptxas miscompile";
  let description = [{
    Does what `gpu-module-to-binary{format=isa}` does (translation to LLVM
    IR, libdevice linking, the LLVM -O3 pipeline and the NVPTX backend) and,
    between the optimised LLVM IR and the backend, rewrites every signed
    integer minimum and maximum of 32 bits or fewer as the unsigned one on
    sign-flipped operands:

    ```llvm
    %m = call i32 @llvm.smax.i32(i32 %a, i32 %b)
    // becomes
    %m = xor (call i32 @llvm.umax.i32(i32 (xor %a, 0x80000000),
                                      i32 (xor %b, 0x80000000))), 0x80000000
    ```

    The reason is a ptxas bug (CUDA 13.0's ptxas and the JIT of the driver
    it ships with, sm_90): when ptxas merges two signed `max.s32`/`min.s32`
    (or `.s16`) into one three-input VIMNMX3 and folds a negation
    (`neg.s32`, `sub 0, x`, `mul x, -1`) into its middle operand, the
    negation is dropped from the encoding, so `max(a, -b, c)` computes
    `max(a, b, c)`. Unsigned min/max, 64-bit ones and float ones are not
    affected.

    A module of several kernels is compiled in parts, at most 8, of
    consecutive kernels of about equal size, on the context's threads
    (`--mlir-disable-threading` runs them one after another): LLVM's
    optimiser and the NVPTX backend are most of a model's compile time.
    The parts depend on the kernels only, never on the number of threads,
    so the PTX is the same on every machine. Their PTX texts are merged
    into the one module the runtime loads: one header, each part's
    statements in order, a declaration or function identical to an earlier
    part's kept once; two different definitions of one name are an internal
    error.
  }];
  let options = [
    Option<"toolkitPath", "toolkit", "std::string", "\"\"",
           "CUDA toolkit whose libdevice is linked (empty: none)">
  ];
}

#endif // OPFUSE_CONVERSION_FUSETOGPU_PASSES_TD
