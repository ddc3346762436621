//===- FuseComputeOps.td - compute-bound fuse ops ---------*- tablegen -*-===//
//
// matmul, attention and conv2d: the ops whose kernels run on tensor cores.
// Included by FuseOps.td, after the op base classes it defines.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_FUSECOMPUTEOPS_TD
#define OPFUSE_DIALECT_FUSE_IR_FUSECOMPUTEOPS_TD
def Fuse_MatmulOp : Fuse_Op<"matmul", [Pure, Fuse_ComputeBound,
    Fuse_ShapeRules, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Fuse_CostInterface>]> {
  let summary = "batched matrix multiplication";
  let description = [{
    `lhs` is `[..., M, K]` (`[..., K, M]` with `transpose_a`) and `rhs` is
    `[..., K, N]` (`[..., N, K]` with `transpose_b`); the leading batch
    dimensions broadcast by NumPy's rules, and either operand may have none.
    The result is `[batch..., M, N]` in the operands' element type; kernels
    accumulate in f32. `2 * batch * M * N * K` FLOPs. An operand that is a
    `fuse.transpose` swapping only its two minor dimensions canonicalizes
    into the transpose flag, so the GEMM reads it in place.

    ```mlir
    %y = fuse.matmul %x, %w : (tensor<8192x4096xbf16>, tensor<4096x11008xbf16>) -> tensor<8192x11008xbf16>
    %s = fuse.matmul %q, %k transpose_b : (tensor<8x128x64xf16>, tensor<8x128x64xf16>) -> tensor<8x128x128xf16>
    ```
  }];
  let arguments = (ins Fuse_FloatTensor:$lhs, Fuse_FloatTensor:$rhs,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs Fuse_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)?
    attr-dict `:` functional-type(operands, results)
  }];
  // A transpose of an operand's two minor dimensions is read in place.
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The contraction length K.
    int64_t getContractionSize();
  }];
}

def Fuse_AttentionOp : Fuse_Op<"attention", [Pure, Fuse_ComputeBound,
    Fuse_ShapeRules, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Fuse_CostInterface>]> {
  let summary = "scaled dot-product attention";
  let description = [{
    `softmax(cap(scale * q kᵀ) + mask) v` per batch element and head, with
    `q` `[B, H, Sq, D]`, `k` `[B, Hkv, Sk, D]`, `v` `[B, Hkv, Sk, Dv]` and
    the result `[B, H, Sq, Dv]`, all of one float type. Fewer key/value
    heads than query heads (grouped-query attention) is allowed when `H`
    is a multiple of `Hkv`: query head `h` reads key/value head
    `h / (H / Hkv)`. `mask`, when present, is added to the scores and
    broadcasts to `[B, H, Sq, Sk]` (a float tensor of the same type; -inf
    hides a key). `causal` hides key `j` from query `i` when `j > i`
    (PyTorch's `is_causal`, aligned at the top left). `softcap`, when
    present (a positive `c`), caps the scaled scores before the mask:
    `cap(s) = c tanh(s / c)` (Gemma 2's logit soft-capping); without it
    `cap(s) = s`. A query row whose keys are all hidden gives zeros, not
    NaN.

    A composite: `fuse-decompose` writes it as two matmuls around an f32
    softmax (scores computed in f32; the probabilities rounded to `v`'s type
    for the second matmul), and the reference computes it unfused in f64.
    FLOPs: `2 D + 2 Dv` per (query, visible key) pair of every head, plus 5
    for its softmax (and 3 for a soft cap); with `causal`, only the pairs
    `j <= i` count.

    ```mlir
    %o = fuse.attention %q, %k, %v scale = 1.250000e-01 causal
        : (tensor<2x16x1024x128xbf16>, tensor<2x4x1024x128xbf16>, tensor<2x4x1024x128xbf16>) -> tensor<2x16x1024x128xbf16>
    ```
  }];
  let arguments = (ins Fuse_FloatTensor:$q, Fuse_FloatTensor:$k,
                       Fuse_FloatTensor:$v, Optional<Fuse_FloatTensor>:$mask,
                       F32Attr:$scale, OptionalAttr<F32Attr>:$softcap,
                       UnitAttr:$causal);
  let results = (outs Fuse_FloatTensor:$result);
  let assemblyFormat = [{
    $q `,` $k `,` $v (`mask` $mask^)? `scale` `=` $scale
    (`softcap` `=` $softcap^)? (`causal` $causal^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// (query, key) pairs of one head that are not hidden by `causal`.
    int64_t getVisiblePairs();
    /// Key tiles of `keysPerTile` keys that a kernel tiling one head's
    /// queries by `rowsPerTile` computes, summed over its query tiles:
    /// every key tile, or under `causal` those up to each query tile's
    /// last row (the diagonal tiles whole).
    int64_t getComputedKeyTiles(int64_t rowsPerTile, int64_t keysPerTile);
    /// The same for `sq` queries and `sk` keys (a kernel's tiling choice,
    /// which may know the shape only).
    static int64_t computedKeyTiles(int64_t sq, int64_t sk, bool causal,
                                    int64_t rowsPerTile, int64_t keysPerTile);
  }];
}

def Fuse_Conv2DOp : Fuse_Op<"conv2d", [Pure, Fuse_ComputeBound,
    Fuse_ShapeRules, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Fuse_CostInterface>]> {
  let summary = "2-D convolution, NHWC input, OHWI filter";
  let description = [{
    `input` is `[N, H, W, C]`, `filter` is `[F, KH, KW, C / groups]` (the
    layout TOSA uses, contiguous in the contraction for implicit GEMM), and
    the result is `[N, OH, OW, F]` with
    `OH = (H + pad_top + pad_bottom - dilation_h * (KH - 1) - 1) / stride_h + 1`
    (likewise OW). `strides` and `dilation` are `[h, w]`, `padding` is
    `[top, bottom, left, right]` (zeros), and `groups` divides both C and F.
    `2 * N * OH * OW * F * KH * KW * (C / groups)` FLOPs. Bias and activation
    are separate ops, fused as an epilogue.

    `input_dilation` (`[h, w]`, default `[1, 1]`) spreads the input's
    pixels that far apart with zeros between them before the padding, so
    H counts as `(H - 1) * input_dilation_h + 1` above: a transposed
    convolution (ONNX ConvTranspose, a strided convolution's gradient) is
    the convolution of its input dilated by its strides with the filter
    flipped. The kernels skip the zeros' products only where whole taps
    miss the input, so its FLOPs count every tap.

    ```mlir
    %y = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1]
        dilation = [1, 1] groups = 1
        : (tensor<32x56x56x64xbf16>, tensor<64x3x3x64xbf16>) -> tensor<32x56x56x64xbf16>
    ```
  }];
  let arguments = (ins Fuse_FloatTensor:$input, Fuse_FloatTensor:$filter,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, Fuse_PositiveI64:$groups,
                       DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{1, 1}">:$input_dilation);
  let results = (outs Fuse_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $filter `strides` `=` $strides `padding` `=` $padding
    `dilation` `=` $dilation `groups` `=` $groups
    (`input_dilation` `=` $input_dilation^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

#endif // OPFUSE_DIALECT_FUSE_IR_FUSECOMPUTEOPS_TD
