//===- Passes.td - fuse dialect transformation passes ------*- tablegen -*-===//
//
// Passes that rewrite fuse functions: composites into primitives, operator
// chains into fuse.group kernels, lone ops into groups of one, and the
// buffer plan.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_TRANSFORMS_PASSES_TD
#define OPFUSE_DIALECT_FUSE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FuseRecognizeAttention : Pass<"fuse-recognize-attention", "mlir::func::FuncOp"> {
  let summary = "Rewrite matmul, scale, mask or select, softmax and matmul chains into fuse.attention";
  let description = [{
    Finds attention written out as its parts, the way frontends and the
    examples write it: `matmul(q, kᵀ)` (k transposed by a `fuse.transpose`
    of its two minor dimensions, or `transpose_b`), an optional scale (a
    `fuse.mul` or `fuse.div` by a splat constant), an optional soft cap (`fuse.tanh` of
    the scores divided by a splat constant `c`, times `c`: the op's
    `softcap`), an optional additive
    mask (`fuse.add`) and an optional `fuse.select` that hides scores
    (`masked_fill`, ONNX `Where`: one branch the scores, the other a splat
    fill of -1e4 or less), in either order, a `fuse.softmax` over the last
    axis, an optional `fuse.cast`, and `matmul(p, v)`, every intermediate
    read only by the next part. A select whose condition is the constant
    lower triangle (keys up to each query) makes the attention causal;
    any other becomes an additive mask over its condition's shape (0, or
    the fill where hidden), which takes a fill of -1e30 or less (-inf,
    the f32 and bf16 lowest values): with a larger one a row whose keys
    are all hidden would change. The chain becomes one `fuse.attention`
    (rank-2 and rank-3
    operands reshaped to `[B, H, S, D]`) when the fused attention kernel
    runs it (bf16 or f16, head dimensions multiples of 16 up to 128), so
    the scores are never written to memory. Other chains are left as they
    are; with `fuse-explain`, a remark at the softmax says why.

    ```mlir
    %kt = fuse.transpose %k permutation = [0, 1, 3, 2] : tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
    %s = fuse.matmul %q, %kt : (tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16>
    %c = fuse.constant dense<1.250000e-01> : tensor<bf16>
    %t = fuse.mul %s, %c : (tensor<1x2x64x64xbf16>, tensor<bf16>) -> tensor<1x2x64x64xbf16>
    %p = fuse.softmax %t axis = 3 : tensor<1x2x64x64xbf16>
    %o = fuse.matmul %p, %v : (tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16>
    // becomes
    %o = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16>
    ```
  }];
  let options = [
    Option<"explain", "fuse-explain", "bool", /*default=*/"false",
           "Remark on each recognised attention and, at the softmax, why a "
           "chain between two matmuls is not one">,
  ];
  let dependentDialects = ["::opfuse::fuse::FuseDialect"];
}

def FuseDecompose : Pass<"fuse-decompose", "mlir::func::FuncOp"> {
  let summary = "Decompose softmax, layer_norm, rms_norm, attention and grouped conv2d into primitives";
  let description = [{
    Rewrites softmax (max-subtracted), layer_norm (with a corrected
    two-pass variance) and rms_norm into reductions and elementwise ops,
    so that fusion can make one kernel of each with its neighbours, and
    attention into two matmuls around such a softmax (scores in f32,
    grouped-query heads read as rows of their key/value head, the causal
    mask from an index row and column, hidden rows giving zeros).
    Reductions keep their axes so that their results broadcast back over
    the row; f16 and bf16 are widened to f32 first and the result rounded
    once. docs/numerics.md gives the formulas and why.

    A grouped conv2d (depthwise among them) with at most 64 products an
    output (KH x KW x input channels per group), which one GEMM per group
    would compute in tiles mostly of padding, becomes the sum over its taps of the strided windows of its
    zero-padded input (a concat with zeros, then slices) times each tap's
    weight per output channel, in f32; where a group has several input
    channels, one term per channel, the window gathered onto the output
    channels that read it. A constant filter (an imported model's) gives
    each tap's weights as a constant vector, which the kernel reads with
    whole vector lanes. Fusion makes one memory-bound loop kernel of it
    with its bias and activation, as it does of a pool. Wider groups stay
    conv2d ops, which the GEMM kernels run one group a batch element.

    With `keep-attention` an attention the fused attention kernel computes
    (bf16 or f16, head dimensions multiples of 16 up to 128) stays one op
    for fusion to give its own kernel; the others are decomposed (with
    `fuse-explain`, a remark says why).

    ```mlir
    %p = fuse.softmax %x axis = 1 : tensor<4x1024xf32>
    // becomes
    %m = fuse.reduce_max %x axes = [1] keepdims : tensor<4x1024xf32> -> tensor<4x1xf32>
    %d = fuse.sub %x, %m : (tensor<4x1024xf32>, tensor<4x1xf32>) -> tensor<4x1024xf32>
    %e = fuse.exp %d : tensor<4x1024xf32>
    %s = fuse.reduce_sum %e axes = [1] keepdims : tensor<4x1024xf32> -> tensor<4x1xf32>
    %p = fuse.div %e, %s : (tensor<4x1024xf32>, tensor<4x1xf32>) -> tensor<4x1024xf32>
    ```
  }];
  let options = [
    Option<"keepAttention", "keep-attention", "bool", /*default=*/"false",
           "Keep the attentions the fused attention kernel computes">,
    Option<"explain", "fuse-explain", "bool", /*default=*/"false",
           "Remark why an attention is decomposed when keep-attention is on">,
  ];
  let dependentDialects = ["::opfuse::fuse::FuseDialect"];
}

def FuseWindowCollectives : Pass<"fuse-window-collectives", "mlir::func::FuncOp"> {
  let summary = "Split a GEMM feeding an all_reduce into chunks whose all_reduces overlap the next chunk's GEMM";
  let description = [{
    A row-parallel layer of tensor parallelism ends in `matmul` then
    `all_reduce`: run one after the other, the GPUs' links idle while the
    tensor cores work and the other way round. This pass splits such a
    matmul along its rows (the first non-unit dimension of its result
    before the last two, else M) into chunks, each a `fuse.slice` of the
    left operand times the whole right operand, and gives every chunk an
    `all_reduce` of its own; a `fuse.concat` joins the reduced chunks for
    the users, where fusion reads them as an index map (no copy). The
    runtime then runs each chunk's all_reduce on a stream of its own while
    the next chunk multiplies (XLA's windowed einsum and PyTorch's async
    tensor parallelism do the same).

    Every chunk's matmul and all_reduce carry `fuse.overlap_sms`: the SMs
    the GEMM kernels leave free and the CTAs NCCL may use, so that both
    run at once (a persistent GEMM otherwise holds every SM).

    It applies where the matmul's only user is an all_reduce over more than
    one device, the left operand is not transposed and its row count, the
    right operand is 2-D, every user of the all_reduce is elementwise (so
    the concat costs nothing) and the cost model predicts a gain of 5% or
    more: the chunked pipeline on two streams (each chunk's GEMM, then its
    all_reduce beside the next GEMM) against the GEMM and the all_reduce in
    a row, both at the roofline, a chunk's GEMM scaled by the tile model's
    ratio of a chunk on the SMs left to the whole GEMM on all of them (the
    waves a smaller grid loses). Chunks are 2, 3, 4, 6 or 8 equal parts of whole
    128-row tiles; `chunks` forces a count. A target with no more SMs than
    `overlap-sms` keeps every layer whole (with `chunks`, that is an
    error). With `fuse-explain`, a remark at each all_reduce says what was
    predicted or why it was left whole.

    ```mlir
    %p = fuse.matmul %h, %w : (tensor<8192x1376xbf16>, tensor<1376x4096xbf16>) -> tensor<8192x4096xbf16>
    %r = fuse.all_reduce sum, %p devices = 8 : tensor<8192x4096xbf16>
    // becomes, with two chunks
    %h0 = fuse.slice %h offsets = [0, 0] sizes = [4096, 1376] strides = [1, 1] : tensor<8192x1376xbf16> -> tensor<4096x1376xbf16>
    %p0 = fuse.matmul %h0, %w {fuse.overlap_sms = 16 : i64} : (tensor<4096x1376xbf16>, tensor<1376x4096xbf16>) -> tensor<4096x4096xbf16>
    %r0 = fuse.all_reduce sum, %p0 devices = 8 {fuse.overlap_sms = 16 : i64} : tensor<4096x4096xbf16>
    // ... the same for rows 4096-8191 ...
    %r = fuse.concat %r0, %r1 axis = 0 : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<8192x4096xbf16>
    ```
  }];
  let options = [
    Option<"chunks", "chunks", "int64_t", /*default=*/"0",
           "Chunks per window (2 to 8); 0 lets the cost model choose, and "
           "leaves a layer whole when it predicts no gain">,
    Option<"overlapSms", "overlap-sms", "int64_t", /*default=*/"16",
           "SMs the chunk GEMMs leave to NCCL (1 to 64)">,
    Option<"explain", "fuse-explain", "bool", /*default=*/"false",
           "Remark at each all_reduce of a matmul: the chunks and the "
           "predicted times, or why it stays whole">,
  ];
  let dependentDialects = ["::opfuse::fuse::FuseDialect"];
}

def FuseSinkTransposes : Pass<"fuse-sink-transposes", "mlir::func::FuncOp"> {
  let summary = "Move transposes through layout-free ops until they meet their inverses";
  let description = [{
    An imported convolutional network keeps its activations NCHW while
    `fuse.conv2d` computes NHWC, so each convolution sits between two
    transposes, and the bias, normalisation, activation and residual add
    between two convolutions fuse with a transpose instead of into the
    convolution's epilogue. This pass moves transposes down through the ops
    that compute the same values in any layout: elementwise ops (their other
    operands permuted alike: constants at compile time, broadcast operands
    by a reshape where only dimensions of size 1 move, else by a transpose
    of their own), reductions (axes renumbered), slices and concats; a
    transpose that meets its inverse vanishes, one that meets another
    transpose becomes their composition.

    The unit of the rewrite is a region: the ops grown forward from one
    transpose that can all run in its input's layout, with the transposes
    of that layout they meet absorbed, and with an operand computed from
    such a transpose by elementwise ops (a downsampling branch's norm
    beside the main branch's) pulled in with the ops that compute it. An
    operand the function already transposes into that layout (a block's
    input, read again by its residual add) is read there, and a splat
    broadcast (a pool's padding) is broadcast again. A value
    of the region read by an op outside it (a matmul, a return) gets the
    transpose again, or a reshape where only dimensions of size 1 move. A
    region is rewritten only when the transposes it leaves move fewer bytes
    than those it removes, so every rewrite lowers the bytes transposed and
    the pass ends. With `fuse-explain`, a remark at the first transpose of
    each region says what moved, or why it stayed.

    ```mlir
    %t = fuse.transpose %c permutation = [0, 3, 1, 2] : tensor<1x8x8x16xf32> -> tensor<1x16x8x8xf32>
    %y = fuse.mul %t, %s : (tensor<1x16x8x8xf32>, tensor<16x1x1xf32>) -> tensor<1x16x8x8xf32>
    %r = fuse.relu %y : tensor<1x16x8x8xf32>
    %n = fuse.transpose %r permutation = [0, 2, 3, 1] : tensor<1x16x8x8xf32> -> tensor<1x8x8x16xf32>
    // becomes
    %s2 = fuse.constant dense<...> : tensor<1x1x1x16xf32>
    %y = fuse.mul %c, %s2 : (tensor<1x8x8x16xf32>, tensor<1x1x1x16xf32>) -> tensor<1x8x8x16xf32>
    %n = fuse.relu %y : tensor<1x8x8x16xf32>
    ```
  }];
  let options = [
    Option<"explain", "fuse-explain", "bool", /*default=*/"false",
           "Remark at each transpose that starts a region: what moved, or "
           "why it stayed">,
  ];
  let dependentDialects = ["::opfuse::fuse::FuseDialect"];
}

def FuseElementwise : Pass<"fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Group elementwise chains, row reductions with their prologues and epilogues, and matmuls with their epilogues into fuse.group kernels";
  let description = [{
    Groups producer-consumer chains of elementwise ops, broadcasts and the
    reshapes between them into `fuse.group` regions, each one GPU kernel:
    a row reduction (over trailing axes, or over leading or scattered
    ones as strided rows) joins with the elementwise ops that feed it and
    those that use its per-row result (softmax and the normalisations are
    one kernel), data movement (transpose, slice, concat, gather,
    broadcast_to) joins the kernels that read it or feed it as index maps,
    and a matmul or conv2d with the elementwise ops that consume its
    result (its epilogue), a matmul also with the transposes, slices and
    reshapes it reads its operands through (one strided layout) and those
    its result is stored through: the merge of attention heads, and the
    slices of a result read only through slices (Q, K and V of one QKV
    projection become three outputs, each dying with its last reader);
    an attention also with a concat along the sequence axis that builds
    its K or V from tensors in memory (a KV cache and a decode step's new
    rows), which it reads piece by piece, so the joined cache is never
    written. Loop kernels over the same elements that each take less than
    a launch and share a broadcast input (the rotations of a decode
    step's query and key) become one kernel. A group is formed only when
    the kernel
    emitter registry (`KernelEmitter.h`) accepts its ops, and only when the
    grouped graph stays acyclic. A producer with users outside the group
    is recomputed inside it, kept as an extra output or read, as the
    roofline cost model of the module's `fuse.target` predicts is fastest.
    A matmul's A operand computed by elementwise ops from one input of its
    shape (and broadcast inputs: a norm's statistics, a bias) becomes the
    GEMM's prologue, evaluated on each K slice in shared memory, when the
    cost model predicts that what the ops' own kernel stops writing (or
    the whole kernel, where nothing else reads its values) outweighs
    recomputing them for every column tile of the GEMM.
    With `fuse-explain` every decision and every refusal is a remark with
    its reason. docs/architecture.md gives the whole algorithm.

    ```mlir
    %0 = fuse.mul %x, %k : (tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
    %1 = fuse.tanh %0 : tensor<64xf32>
    // becomes
    %1 = fuse.group (%x) : (tensor<64xf32>) -> tensor<64xf32> {
    ^bb0(%a: tensor<64xf32>):
      %k = fuse.constant dense<2.0> : tensor<f32>
      %0 = fuse.mul %a, %k : (tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
      %1 = fuse.tanh %0 : tensor<64xf32>
      fuse.yield %1 : tensor<64xf32>
    }
    ```
  }];
  let options = [
    Option<"explain", "fuse-explain", "bool", /*default=*/"false",
           "Emit a remark, with its reason, for every fusion decision about "
           "a shared producer and every edge where a kernel stops">,
    Option<"gemmPrologues", "gemm-prologues", "std::string",
           /*default=*/"\"auto\"",
           "When a matmul computes its A operand from elementwise ops in a "
           "prologue (each K slice rewritten in shared memory): auto (where "
           "the cost model predicts it pays), always (wherever the GEMM "
           "kernel can, with a norm's per-row statistics too where A has at "
           "most 64 rows) or never">,
  ];
  let dependentDialects = ["::opfuse::fuse::FuseDialect"];
}

def FuseOutlineKernels : Pass<"fuse-outline-kernels", "mlir::func::FuncOp"> {
  let summary = "Wrap every op that runs as a kernel of its own in a fuse.group";
  let description = [{
    After fusion every kernel is a `fuse.group`: an elementwise op, a
    reduction, a contraction or a data-movement op left alone (or every
    op, with `--no-fuse`)
    is wrapped in a group of one, carrying its `fuse.matmul_tiling`, and
    splat constants it used are copied in; constants nothing uses any more
    are erased. Buffer planning and emission then see groups only. Ops no
    emitter compiles (collectives) stay as they are, and
    `convert-fuse-to-gpu` reports them.

    ```mlir
    %0 = fuse.relu %x : tensor<64xf32>
    // becomes
    %0 = fuse.group (%x) : (tensor<64xf32>) -> tensor<64xf32> {
    ^bb0(%a: tensor<64xf32>):
      %r = fuse.relu %a : tensor<64xf32>
      fuse.yield %r : tensor<64xf32>
    }
    ```
  }];
  let dependentDialects = ["::opfuse::fuse::FuseDialect"];
}

def FusePlanMemory : Pass<"fuse-plan-memory", "mlir::func::FuncOp"> {
  let summary = "Order the kernels and plan their buffers into one arena";
  let description = [{
    Picks a kernel order with the lowest max-live lower bound among a few
    topological orders, lets loop and row kernels write an output over an
    input that dies in them, and places the intermediate buffers at
    256-byte-aligned offsets of one arena with the best of several
    placement heuristics; a plan with two live buffers overlapping is a
    compiler bug and fails the pass. Arguments, constants and, unless
    `plan-outputs`, results belong to the caller. The plan is stored as
    `fuse.offsets` on each kernel (-1 outside the arena) and `fuse.memory`
    (#fuse.memory_plan) on the function. docs/memory-planning.md has the
    algorithms and measurements.

    ```mlir
    func.func @f(...) attributes {fuse.memory = #fuse.memory_plan<arena =
        4194304, lower_bound = 4194304, naive = 8388608, in_place = 1, ...>}
    %0 = fuse.group(%x) ... {fuse.offsets = array<i64: 0>}
    %1 = fuse.group(%0) ... {fuse.offsets = array<i64: 0>}
    %2 = fuse.group(%1) ... {fuse.offsets = array<i64: -1>}
    ```
  }];
  let options = [
    Option<"planOutputs", "plan-outputs", "bool", /*default=*/"false",
           "Plan the function's results into the arena too (they then live "
           "to the end)">,
    Option<"explain", "fuse-explain", "bool", /*default=*/"false",
           "Remark on every in-place output and on the plan's totals">,
  ];
}

#endif // OPFUSE_DIALECT_FUSE_TRANSFORMS_PASSES_TD
