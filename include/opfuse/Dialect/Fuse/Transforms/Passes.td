//===- Passes.td - fuse dialect transformation passes ------*- tablegen -*-===//
//
// Passes that rewrite fuse functions: fusion of operator chains into
// fuse.group kernels.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_TRANSFORMS_PASSES_TD
#define OPFUSE_DIALECT_FUSE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FuseDecompose : Pass<"fuse-decompose", "mlir::func::FuncOp"> {
  let summary = "Decompose softmax, layer_norm and rms_norm into primitives";
  let description = [{
    Rewrites each composite normalisation into reductions and elementwise
    ops, so that fusion can form one kernel of it together with its
    producers (a bias, a residual add) and consumers (a cast, a scale):

    - `softmax`: `e = exp(x - reduce_max(x))`, `e / reduce_sum(e)`;
    - `layer_norm`: `d = x - reduce_mean(x)`, `m = reduce_mean(d)`,
      `var = reduce_mean(d * d) - m * m`, `(d - m) * rsqrt(var + epsilon)`,
      times `scale`, plus `bias` (a corrected two-pass variance: `E[x^2] -
      E[x]^2` cancels for rows of large magnitude, and even an f32 mean of a
      row around 1e4 is off by up to 5e-4, its half ulp; `d` is exact and
      small, so `m` is tiny and `var` cancels nothing; `m` and the mean of
      squares do not depend on each other, so the row emitter folds them in
      one pass);
    - `rms_norm`: `x * rsqrt(reduce_mean(x * x) + epsilon)`, times `scale`.

    Reductions keep their axes (`keepdims`) so that their results broadcast
    back over the row. f16 and bf16 inputs (and scale and bias) are cast to
    f32 first and the result cast back, so every reduction accumulates in
    f32 and the output is rounded once. The pipeline runs this pass before
    fusion, also with `--no-fuse` (each primitive then is its own kernel).

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
  let dependentDialects = ["::opfuse::fuse::FuseDialect"];
}

def FuseElementwise : Pass<"fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Group elementwise chains, row reductions with their prologues and epilogues, and matmuls with their epilogues into fuse.group kernels";
  let description = [{
    Groups producer-consumer chains of elementwise ops (every op with the
    `BroadcastElementwise` trait: unary, binary, compare, select, cast),
    `fuse.broadcast_to`, and the `fuse.reshape`s between them into
    `fuse.group` regions, each of which becomes one GPU kernel. Every
    elementwise op ends up in a group, a lone op in a group of one. A reshape
    only relabels row-major data: it joins a group when all its users are
    inside and it spans the group's whole iteration space, and otherwise
    stays outside, where it costs nothing (its result aliases its input).

    Reductions (`reduce_sum`, `reduce_max`, `reduce_mean`; softmax and the
    normalisations after `fuse-decompose`) over the trailing dimensions of
    their input join a group too, so that a reduction, the elementwise ops
    that feed it (prologue), those that use its per-row result broadcast
    back over the row (epilogue), and further reductions over the same rows
    (layer_norm's mean and variance, softmax's max and sum) form one
    row-reduction kernel. A group with a reduction must stay one such
    kernel (`opfuse/Dialect/Fuse/IR/RowKernel.h`, shared with the emitter):
    all its reductions over the same rows, a per-row value combined with
    per-element ones only through a broadcast along its row, outputs per
    element or per row. An elementwise op that reads the per-row result of a
    reduction that cannot join (other rows) stays in that reduction's
    kernel as its epilogue. A reduction over leading dimensions stays alone
    (the GPU conversion gives it a kernel of its own). Finally, row kernels
    over the same rows that read a common row-sized input and do not depend
    on each other (a row's sum beside its maximum) merge into one kernel,
    which reads that input once.

    A `fuse.matmul` joins the group of elementwise ops that consume its
    result, which becomes the GEMM kernel's epilogue: bias, activation,
    residual and cast run on the accumulators and the kernel writes once
    (`x @ W1 + b1 -> gelu` is one kernel). Such a group
    (`opfuse/Dialect/Fuse/IR/GemmKernel.h`, shared with the emitter) holds
    one matmul and elementwise ops over its output shape; smaller values (a
    bias) are read by broadcast. The matmul's operands are always read from
    memory: an op producing one does not join (no prologue fusion). A matmul
    is never recomputed; with users outside the group its result is an extra
    output of the kernel.

    Groups grow from the last op of the function backwards through operands,
    considering the latest candidate first, so a value feeding two members
    (softmax's exp feeds the sum and the division) joins once, unshared.
    A kernel iterates over the shape of its outputs, so every output of a
    group has the group's shape; an op of a smaller shape (a transformed
    bias) joins only when all its users are inside, and is evaluated at the
    broadcast index. Splat constants are copied into every group that uses
    them as scalars.

    Legality: the grouped graph stays acyclic. An op does not join a group
    when a path leaves the group and comes back through it, directly or
    through another group.

    A producer with users outside the group is either recomputed inside the
    group or kept as an extra group output (a multi-output kernel). The
    roofline cost model of the `target` (docs/cost-model.md) decides whether
    recomputing is cheap: the group's predicted time with the producer
    recomputed (its FLOPs at every element of the group, plus its inputs the
    group does not read yet) against with its result read from memory. In a
    memory-bound group extra FLOPs cost nothing until compute becomes the
    bound, so cheap producers are recomputed and expensive ones read.
    When some outside user is not elementwise (a matmul, the function's
    return) the value must reach memory anyway, so an extra output (same
    shape, no cycle) is tried first and recomputation second; when all
    outside users are elementwise kernels, cheap recomputation comes first,
    since then the value may never be written at all. Otherwise the group
    reads it.

    With `fuse-explain`, every decision about a producer that has users
    outside the group (recomputed, extra output, refused), every refused
    reshape or reduction, every merge of sibling row kernels, and every
    edge where a kernel stops at an op that is not elementwise (a matmul)
    is reported as a remark naming the reason.

    Example:

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
    Option<"target", "target", "std::string", /*default=*/"\"h200\"",
           "GPU target whose cost model weighs recomputation against "
           "reading: a built-in name (a100, h100, h200) or a target JSON "
           "file">,
  ];
  let dependentDialects = ["::opfuse::fuse::FuseDialect"];
}

def FusePlanMemory : Pass<"fuse-plan-memory", "mlir::func::FuncOp"> {
  let summary = "Order the kernels and plan their buffers into one arena";
  let description = [{
    Plans the device memory of a function whose kernels are formed (every
    op that launches a kernel: each `fuse.group`, and any op outside one;
    constants and reshapes launch nothing). Buffers are the values kernels
    write; a reshape's result is its input's buffer.

    1. **Order.** Among several topological orders of the kernels (the
       program order, a depth-first one that finishes a consumer chain
       before starting a sibling, and a greedy one that runs the ready
       kernel growing the live bytes least) the pass keeps the one with the
       lowest max-live lower bound, and reorders the function to it.
    2. **Liveness and lower bound.** A buffer is live from the kernel that
       writes it to the last kernel that reads it; a function result in the
       arena to the end. The lower bound is the maximum, over kernels, of
       the bytes live while it runs (its inputs, its outputs, and everything
       live across it), with sizes rounded up to 256 bytes.
    3. **In-place reuse.** A kernel of the loop emitter (elementwise ops,
       broadcasts, reshapes) writes an output over an input of the same
       element count and bytes that dies in it: each thread reads its
       elements before it writes them. A row-reduction kernel does the same
       for its per-element outputs and inputs (a thread reads and writes
       the same positions of its row in every pass), never for per-row
       ones.
    4. **Offsets.** Placement heuristics (first fit by size, by lifetime,
       by start, and best fit by size) each assign 256-byte-aligned offsets;
       the smallest arena is kept. When it is more than 2% above the lower
       bound, a seeded search over placement orders may improve it.
    5. **Verification.** No two buffers alive at the same step overlap;
       a violation is a compiler bug and fails the pass naming both.

    Function arguments, constants and (unless `plan-outputs`) results are
    owned by the caller and stay out of the arena. The plan is stored in the
    IR: `fuse.offsets` on each kernel (an offset per result, -1 outside the
    arena) and `fuse.memory` on the function (arena, lower bound, the naive
    sum of one allocation per buffer, in-place hits, bytes the caller owns,
    the order and placement chosen). The launch plan and the report read
    them. With `fuse-explain`, a remark per in-place output and one with the
    totals.

    Example: a chain `k0 -> k1 -> k2` of elementwise kernels over 4 MiB
    values needs one 4 MiB arena: k1 writes over k0's output, k2 (whose
    result is the function's) writes to the caller's buffer.

    ```mlir
    func.func @f(...) attributes {fuse.memory = {arena = 4194304 : i64,
        in_place = 1 : i64, lower_bound = 4194304 : i64,
        naive = 8388608 : i64, order = "program", ...}}
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
