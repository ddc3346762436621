//===- FuseOps.td - fuse dialect operations ----------------*- tablegen -*-===//
//
// Every operator of the fuse dialect. Shape rules and verifiers live in the
// C++ files of lib/Dialect/Fuse/IR named after each op family.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_FUSEOPS_TD
#define OPFUSE_DIALECT_FUSE_IR_FUSEOPS_TD

include "opfuse/Dialect/Fuse/IR/FuseDialect.td"
include "opfuse/Dialect/Fuse/IR/FuseInterfaces.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

//===----------------------------------------------------------------------===//
// Types and attributes
//===----------------------------------------------------------------------===//

// A static shape is part of the type constraint, so a dynamic dimension is
// reported by the op verifier before any shape rule runs.
class Fuse_StaticTensorOf<list<Type> types, string desc>
    : Type<And<[TensorOf<types>.predicate, HasStaticShapePred]>,
           "statically shaped tensor of " # desc # " values",
           "::mlir::RankedTensorType">;

def Fuse_AnyTensor : Fuse_StaticTensorOf<[F32, F16, BF16, I32, I64, I1],
                                         "f32, f16, bf16, i32, i64 or i1">;
def Fuse_NumericTensor : Fuse_StaticTensorOf<[F32, F16, BF16, I32, I64],
                                             "f32, f16, bf16, i32 or i64">;
def Fuse_FloatTensor : Fuse_StaticTensorOf<[F32, F16, BF16], "f32, f16 or bf16">;
def Fuse_IndexTensor : Fuse_StaticTensorOf<[I32, I64], "i32 or i64">;
def Fuse_BoolTensor : Fuse_StaticTensorOf<[I1], "i1">;

def Fuse_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how gelu evaluates the Gaussian CDF", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"tanh", 1>
    ]> {
  let cppNamespace = "::opfuse::fuse";
}

def Fuse_CompareDirection : I32EnumAttr<"CompareDirection",
    "the relation fuse.compare tests", [
      I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>
    ]> {
  let cppNamespace = "::opfuse::fuse";
}

def Fuse_ReduceKind : I32EnumAttr<"ReduceKind",
    "how a collective combines the devices' tensors", [
      I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>
    ]> {
  let cppNamespace = "::opfuse::fuse";
}

def Fuse_PositiveI64 : ConfinedAttr<I64Attr, [IntMinValue<1>]>;
def Fuse_NonNegativeI64 : ConfinedAttr<I64Attr, [IntMinValue<0>]>;

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

// `flops` is the operation count per element (docs/cost-model.md).
class Fuse_UnaryOp<string mnemonic, Type tensorType, int flops,
                   list<Trait> traits = []>
    : Fuse_Op<mnemonic, traits # [Pure, Fuse_MemoryBound,
        Fuse_BroadcastElementwise, AllTypesMatch<["input", "result"]>,
        DeclareOpInterfaceMethods<Fuse_CostInterface>]> {
  let arguments = (ins tensorType:$input);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let extraClassDefinition = [{
    int64_t $cppClass::getFlops() {
      return }] # flops # [{ * ::opfuse::fuse::getNumElements(getType());
    }
  }];
}

def Fuse_NegOp : Fuse_UnaryOp<"neg", Fuse_NumericTensor, 1> {
  let summary = "elementwise negation";
  let description = [{
    `-x` for every element; integers wrap (the most negative value is its
    own negation). One operation per element.

    ```mlir
    %y = fuse.neg %x : tensor<4x8xf32>
    ```
  }];
}
def Fuse_AbsOp : Fuse_UnaryOp<"abs", Fuse_NumericTensor, 1> {
  let summary = "elementwise absolute value";
  let description = [{
    `|x|` for every element; integers wrap (the most negative value stays
    negative). One operation per element.

    ```mlir
    %y = fuse.abs %x : tensor<16xi32>
    ```
  }];
}
def Fuse_ExpOp : Fuse_UnaryOp<"exp", Fuse_FloatTensor, 1> {
  let summary = "elementwise natural exponential";
  let description = [{
    `e^x` for every element. One operation per element.

    ```mlir
    %y = fuse.exp %x : tensor<4x8xf32>
    ```
  }];
}
def Fuse_LogOp : Fuse_UnaryOp<"log", Fuse_FloatTensor, 1> {
  let summary = "elementwise natural logarithm";
  let description = [{
    `ln x` for every element: `ln 0` (either sign) is -infinity, a negative
    argument gives NaN. One operation per element.

    ```mlir
    %y = fuse.log %x : tensor<4x8xbf16>
    ```
  }];
}
def Fuse_SqrtOp : Fuse_UnaryOp<"sqrt", Fuse_FloatTensor, 1> {
  let summary = "elementwise square root";
  let description = [{
    `sqrt(x)` for every element: `sqrt(-0) = -0`, a negative argument gives
    NaN. One operation per element.

    ```mlir
    %y = fuse.sqrt %x : tensor<8xf16>
    ```
  }];
}
def Fuse_RsqrtOp : Fuse_UnaryOp<"rsqrt", Fuse_FloatTensor, 1> {
  let summary = "elementwise reciprocal square root";
  let description = [{
    `1 / sqrt(x)` for every element: +infinity at +0, -infinity at -0, NaN
    for a negative argument. One operation per element.

    ```mlir
    %y = fuse.rsqrt %x : tensor<8xf32>
    ```
  }];
}
def Fuse_TanhOp : Fuse_UnaryOp<"tanh", Fuse_FloatTensor, 1> {
  let summary = "elementwise hyperbolic tangent";
  let description = [{
    `tanh(x)` for every element. One operation per element.

    ```mlir
    %y = fuse.tanh %x : tensor<4x8xf32>
    ```
  }];
}
def Fuse_SinOp : Fuse_UnaryOp<"sin", Fuse_FloatTensor, 1> {
  let summary = "elementwise sine";
  let description = [{
    `sin(x)` for every element, `x` in radians (rotary position embeddings,
    timestep embeddings): an infinite argument gives NaN. One operation per
    element.

    ```mlir
    %y = fuse.sin %x : tensor<128x64xf32>
    ```
  }];
}
def Fuse_CosOp : Fuse_UnaryOp<"cos", Fuse_FloatTensor, 1> {
  let summary = "elementwise cosine";
  let description = [{
    `cos(x)` for every element, `x` in radians: an infinite argument gives
    NaN. One operation per element.

    ```mlir
    %y = fuse.cos %x : tensor<128x64xf32>
    ```
  }];
}
def Fuse_SigmoidOp : Fuse_UnaryOp<"sigmoid", Fuse_FloatTensor, 4> {
  let summary = "elementwise logistic sigmoid";
  let description = [{
    `1 / (1 + e^-x)` for every element. Four operations per element
    (negate, exp, add, divide).

    ```mlir
    %y = fuse.sigmoid %x : tensor<4x8xf32>
    ```
  }];
}
def Fuse_ReluOp : Fuse_UnaryOp<"relu", Fuse_NumericTensor, 1> {
  let summary = "elementwise rectified linear unit";
  let description = [{
    `max(x, 0)` for every element. One operation per element.

    ```mlir
    %y = fuse.relu %x : tensor<4x8xf32>
    ```
  }];
}
def Fuse_GeluOp : Fuse_Op<"gelu", [Pure, Fuse_MemoryBound,
    Fuse_BroadcastElementwise, AllTypesMatch<["input", "result"]>,
    DeclareOpInterfaceMethods<Fuse_CostInterface>]> {
  let summary = "elementwise Gaussian error linear unit";
  let description = [{
    `x * Phi(x)` for every element, where `Phi` is the standard normal CDF.
    With `approximate = none` it is evaluated exactly as
    `0.5 * x * (1 + erf(x / sqrt(2)))` (5 operations per element); with
    `approximate = tanh` as
    `0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))` (9 operations
    per element), as in PyTorch's `gelu(approximate='tanh')`.

    ```mlir
    %y = fuse.gelu %x approximate = tanh : tensor<4x8xbf16>
    ```
  }];
  let arguments = (ins Fuse_FloatTensor:$input,
                       Fuse_GeluApproximation:$approximate);
  let results = (outs Fuse_FloatTensor:$result);
  let assemblyFormat =
      "$input `approximate` `=` $approximate attr-dict `:` type($result)";
}
def Fuse_SiluOp : Fuse_UnaryOp<"silu", Fuse_FloatTensor, 5> {
  let summary = "elementwise sigmoid linear unit (swish)";
  let description = [{
    `x * sigmoid(x)` for every element. Five operations per element.

    ```mlir
    %y = fuse.silu %x : tensor<4x8xbf16>
    ```
  }];
}
def Fuse_ErfOp : Fuse_UnaryOp<"erf", Fuse_FloatTensor, 1> {
  let summary = "elementwise Gauss error function";
  let description = [{
    `erf(x)` for every element. One operation per element.

    ```mlir
    %y = fuse.erf %x : tensor<4x8xf32>
    ```
  }];
}
def Fuse_ReciprocalOp : Fuse_UnaryOp<"reciprocal", Fuse_FloatTensor, 1> {
  let summary = "elementwise reciprocal";
  let description = [{
    `1 / x` for every element (IEEE 754: an infinity of `x`'s sign at zero).
    One operation per element.

    ```mlir
    %y = fuse.reciprocal %x : tensor<4x8xf32>
    ```
  }];
}

def Fuse_CastOp : Fuse_Op<"cast", [Pure, Fuse_MemoryBound,
    Fuse_BroadcastElementwise, DeclareOpInterfaceMethods<Fuse_CostInterface>]> {
  let summary = "elementwise conversion to another element type";
  let description = [{
    Converts every element to the result's element type with the shape kept.
    Floats round to nearest even; float to integer truncates toward zero
    and saturates at the integer type's range (NaN becomes 0); integers
    narrow by keeping their low bits; integer or float to i1 is `x != 0`
    (true for NaN). Conversions are not counted as arithmetic (0 FLOPs). A
    cast to the same type folds away.

    ```mlir
    %y = fuse.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
    ```
  }];
  let arguments = (ins Fuse_AnyTensor:$input);
  let results = (outs Fuse_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary with NumPy broadcasting
//===----------------------------------------------------------------------===//

class Fuse_BinaryOp<string mnemonic, Type tensorType, list<Trait> traits = []>
    : Fuse_Op<mnemonic, traits # [Pure, Fuse_MemoryBound,
        Fuse_BroadcastElementwise, Fuse_ShapeRules, InferTypeOpAdaptor,
        DeclareOpInterfaceMethods<Fuse_CostInterface>]> {
  let arguments = (ins tensorType:$lhs, tensorType:$rhs);
  let results = (outs tensorType:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::opfuse::fuse::inferBroadcastResult(
          loc, getOperationName(), adaptor.getOperands(), {"lhs", "rhs"},
          std::nullopt, results);
    }
    int64_t $cppClass::getFlops() {
      return ::opfuse::fuse::getNumElements(getType());
    }
  }];
}

def Fuse_AddOp : Fuse_BinaryOp<"add", Fuse_NumericTensor, [Commutative]> {
  let summary = "elementwise addition with broadcasting";
  let description = [{
    `lhs + rhs` after NumPy broadcasting of both operands to a common shape;
    both operands have the same element type; integers wrap at their width
    (two's complement), as in `sub` and `mul`. One operation per result
    element. `x + 0` folds to `x` when no broadcast changes the shape (a
    `-0.0` input then stays `-0.0`, which compares equal to `+0.0`).

    ```mlir
    %y = fuse.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let hasFolder = 1;
}
def Fuse_SubOp : Fuse_BinaryOp<"sub", Fuse_NumericTensor> {
  let summary = "elementwise subtraction with broadcasting";
  let description = [{
    `lhs - rhs` after NumPy broadcasting. One operation per result element.
    `x - 0` folds to `x` when no broadcast changes the shape.

    ```mlir
    %y = fuse.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    ```
  }];
  let hasFolder = 1;
}
def Fuse_MulOp : Fuse_BinaryOp<"mul", Fuse_NumericTensor, [Commutative]> {
  let summary = "elementwise multiplication with broadcasting";
  let description = [{
    `lhs * rhs` after NumPy broadcasting. One operation per result element.
    `x * 1` folds to `x` when no broadcast changes the shape.

    ```mlir
    %y = fuse.mul %x, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    ```
  }];
  let hasFolder = 1;
}
def Fuse_DivOp : Fuse_BinaryOp<"div", Fuse_NumericTensor> {
  let summary = "elementwise division with broadcasting";
  let description = [{
    `lhs / rhs` after NumPy broadcasting. Floats divide as IEEE 754 does
    (`x / 0` is an infinity of the signs' product, `0 / 0` NaN). Integer
    division truncates toward zero, `x / 0` is -1 for every `x` (all bits
    set, what the GPU's division gives) and the most negative value divided
    by -1 wraps to itself. One operation per result element. `x / 1` folds
    to `x` when no broadcast changes the shape.

    ```mlir
    %y = fuse.div %x, %n : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    ```
  }];
  let hasFolder = 1;
}
def Fuse_MaxOp : Fuse_BinaryOp<"max", Fuse_NumericTensor, [Commutative]> {
  let summary = "elementwise maximum with broadcasting";
  let description = [{
    `max(lhs, rhs)` after NumPy broadcasting; NaN if either is NaN. One
    operation per result element.

    ```mlir
    %y = fuse.max %x, %z : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
  }];
}
def Fuse_MinOp : Fuse_BinaryOp<"min", Fuse_NumericTensor, [Commutative]> {
  let summary = "elementwise minimum with broadcasting";
  let description = [{
    `min(lhs, rhs)` after NumPy broadcasting; NaN if either is NaN. One
    operation per result element.

    ```mlir
    %y = fuse.min %x, %z : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
  }];
}
def Fuse_PowOp : Fuse_BinaryOp<"pow", Fuse_FloatTensor> {
  let summary = "elementwise power with broadcasting";
  let description = [{
    `lhs ^ rhs` after NumPy broadcasting, on floats, as C's `pow` defines
    it: a negative base with an integer exponent keeps its sign rule
    (`(-2)^3 = -8`) and with any other exponent is NaN; `x^0 = 1` and
    `1^y = 1` even for NaN; `0^y` is 0 for `y > 0` and an infinity for
    `y < 0`. One operation per result element.

    ```mlir
    %y = fuse.pow %x, %e : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    ```
  }];
}

def Fuse_CompareOp : Fuse_Op<"compare", [Pure, Fuse_MemoryBound,
    Fuse_BroadcastElementwise, Fuse_ShapeRules, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Fuse_CostInterface>]> {
  let summary = "elementwise comparison with broadcasting";
  let description = [{
    Compares `lhs` and `rhs` after NumPy broadcasting and yields an i1 tensor.
    `direction` is one of `eq`, `ne`, `lt`, `le`, `gt`, `ge`; comparisons with
    NaN are false except `ne`. One operation per result element.

    ```mlir
    %m = fuse.compare gt, %x, %t : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xi1>
    ```
  }];
  let arguments = (ins Fuse_CompareDirection:$direction,
                       Fuse_AnyTensor:$lhs, Fuse_AnyTensor:$rhs);
  let results = (outs Fuse_BoolTensor:$result);
  let assemblyFormat = "$direction `,` $lhs `,` $rhs attr-dict `:` "
                       "functional-type(operands, results)";
}

def Fuse_SelectOp : Fuse_Op<"select", [Pure, Fuse_MemoryBound,
    Fuse_BroadcastElementwise, Fuse_ShapeRules, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Fuse_CostInterface>]> {
  let summary = "elementwise choice with broadcasting";
  let description = [{
    `condition ? on_true : on_false` for every element after broadcasting all
    three operands to a common shape. `on_true` and `on_false` have the same
    element type. A choice is not arithmetic (0 FLOPs).

    ```mlir
    %y = fuse.select %m, %x, %z : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Fuse_BoolTensor:$condition, Fuse_AnyTensor:$on_true,
                       Fuse_AnyTensor:$on_false);
  let results = (outs Fuse_AnyTensor:$result);
  let assemblyFormat = "$condition `,` $on_true `,` $on_false attr-dict `:` "
                       "functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Fuse_ConstantOp : Fuse_Op<"constant", [ConstantLike, Pure, Fuse_MemoryBound,
    AllTypesMatch<["value", "result"]>,
    DeclareOpInterfaceMethods<Fuse_CostInterface,
                              ["getBytesRead", "getBytesWritten"]>]> {
  let summary = "a tensor known at compile time";
  let description = [{
    A splat (`dense<1.0>`), a dense literal (`dense<[[1, 2], [3, 4]]>`) or a
    `dense_resource` blob, the form for weights kept outside the IR text. The
    op runs no kernel: 0 FLOPs and 0 bytes. Its storage is counted where it is
    used, in the bytes its consumers read.

    ```mlir
    %c = fuse.constant dense<1.702> : tensor<f32>
    %w = fuse.constant dense_resource<w1> : tensor<4x4xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Fuse_AnyTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let builders = [
    OpBuilder<(ins "::mlir::ElementsAttr":$value), [{
      build($_builder, $_state, value.getType(), value);
    }]>
  ];
}

//===----------------------------------------------------------------------===//
// Reductions and normalisations
//===----------------------------------------------------------------------===//

class Fuse_ReduceOp<string mnemonic, Type tensorType>
    : Fuse_Op<mnemonic, [Pure, Fuse_MemoryBound, Fuse_ShapeRules, InferTypeOpAdaptor,
        DeclareOpInterfaceMethods<Fuse_CostInterface>]> {
  let arguments = (ins tensorType:$input, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keepdims);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$input `axes` `=` $axes (`keepdims` $keepdims^)? "
                       "attr-dict `:` type($input) `->` type($result)";
  // A reduction of a splat constant folds to a splat (so no kernel reduces
  // a value that is the same at every element).
  let hasFolder = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::opfuse::fuse::inferReduceResult(
          loc, getOperationName(), adaptor.getInput().getType(),
          adaptor.getAxes(), adaptor.getKeepdims(), results);
    }
  }];
}

def Fuse_ReduceSumOp : Fuse_ReduceOp<"reduce_sum", Fuse_NumericTensor> {
  let summary = "sum over a list of axes";
  let description = [{
    Sums `input` over `axes` (strictly increasing, each in `[0, rank)`). With
    `keepdims` the reduced dimensions stay as size 1, otherwise they are
    dropped. `in - out` additions. The sum of a splat constant folds to
    a splat of the value times the reduced count (wrapping for integers;
    for floats computed in f64 and rounded once, as the reference sums).

    ```mlir
    %s = fuse.reduce_sum %x axes = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
    ```
  }];
}
def Fuse_ReduceMaxOp : Fuse_ReduceOp<"reduce_max", Fuse_NumericTensor> {
  let summary = "maximum over a list of axes";
  let description = [{
    The maximum of `input` over `axes`, with the rules of `fuse.reduce_sum`.
    `in - out` comparisons. The maximum of a splat constant folds to the
    splat.

    ```mlir
    %m = fuse.reduce_max %x axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
    ```
  }];
}
def Fuse_ReduceMeanOp : Fuse_ReduceOp<"reduce_mean", Fuse_FloatTensor> {
  let summary = "arithmetic mean over a list of axes";
  let description = [{
    The mean of `input` over `axes`, with the rules of `fuse.reduce_sum`.
    `in - out` additions plus `out` divisions. The mean of a splat constant
    folds to the splat.

    ```mlir
    %m = fuse.reduce_mean %x axes = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
    ```
  }];
}

def Fuse_SoftmaxOp : Fuse_Op<"softmax", [Pure, Fuse_MemoryBound,
    AllTypesMatch<["input", "result"]>,
    DeclareOpInterfaceMethods<Fuse_CostInterface>]> {
  let summary = "softmax along one axis";
  let description = [{
    `exp(x - max(x)) / sum(exp(x - max(x)))` along `axis`, the maximum
    subtracted for stability. A composite: the fusion passes may decompose it
    or emit it whole. Five operations per element (max, subtract, exp, sum,
    divide).

    ```mlir
    %p = fuse.softmax %x axis = 1 : tensor<4x1024xf32>
    ```
  }];
  let arguments = (ins Fuse_FloatTensor:$input, Fuse_NonNegativeI64:$axis);
  let results = (outs Fuse_FloatTensor:$result);
  let assemblyFormat = "$input `axis` `=` $axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Fuse_LayerNormOp : Fuse_Op<"layer_norm", [Pure, Fuse_MemoryBound,
    AttrSizedOperandSegments, Fuse_ShapeRules, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Fuse_CostInterface>]> {
  let summary = "layer normalisation over the trailing axes";
  let description = [{
    Normalises `input` over the dimensions `[axis, rank)` (ONNX's
    LayerNormalization): `(x - mean) / sqrt(var + epsilon)`, the variance
    biased, then multiplies by `scale` (gamma) and adds `bias` (beta) when
    present. Both have the shape `input.shape[axis:]` and the input's element
    type. Per element: 5 operations, plus one for each of scale and bias; per
    normalised row: 4 (two divisions, the epsilon add, rsqrt).

    ```mlir
    %y = fuse.layer_norm %x scale %g bias %b axis = 1 epsilon = 1.000000e-05
        : (tensor<16x4096xf32>, tensor<4096xf32>, tensor<4096xf32>) -> tensor<16x4096xf32>
    ```
  }];
  let arguments = (ins Fuse_FloatTensor:$input,
                       Optional<Fuse_FloatTensor>:$scale,
                       Optional<Fuse_FloatTensor>:$bias,
                       Fuse_NonNegativeI64:$axis, F32Attr:$epsilon);
  let results = (outs Fuse_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`scale` $scale^)? (`bias` $bias^)? `axis` `=` $axis
    `epsilon` `=` $epsilon attr-dict `:` functional-type(operands, results)
  }];
}

def Fuse_RmsNormOp : Fuse_Op<"rms_norm", [Pure, Fuse_MemoryBound,
    Fuse_ShapeRules, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Fuse_CostInterface>]> {
  let summary = "root-mean-square normalisation over the trailing axes";
  let description = [{
    `x / sqrt(mean(x^2) + epsilon)` over the dimensions `[axis, rank)`, then
    times `scale` when present (shape `input.shape[axis:]`). Per element: 3
    operations (square, sum, multiply), plus one for the scale; per row: 3
    (division, epsilon add, rsqrt).

    ```mlir
    %y = fuse.rms_norm %x scale %g axis = 1 epsilon = 1.000000e-06
        : (tensor<16x4096xbf16>, tensor<4096xbf16>) -> tensor<16x4096xbf16>
    ```
  }];
  let arguments = (ins Fuse_FloatTensor:$input,
                       Optional<Fuse_FloatTensor>:$scale,
                       Fuse_NonNegativeI64:$axis, F32Attr:$epsilon);
  let results = (outs Fuse_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`scale` $scale^)? `axis` `=` $axis `epsilon` `=` $epsilon
    attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Fuse_ReshapeOp : Fuse_Op<"reshape", [Pure, Fuse_MemoryBound,
    DeclareOpInterfaceMethods<Fuse_CostInterface,
                              ["getBytesRead", "getBytesWritten"]>]> {
  let summary = "the same elements under another shape";
  let description = [{
    Reinterprets the row-major elements of `input` with the result's shape;
    the element count and type stay. On contiguous tensors this is a
    relabelling: no arithmetic and no bytes moved. A reshape of a reshape
    folds into one; a reshape to the input's own type folds away.

    ```mlir
    %y = fuse.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
    ```
  }];
  let arguments = (ins Fuse_AnyTensor:$input);
  let results = (outs Fuse_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fuse_TransposeOp : Fuse_Op<"transpose", [Pure, Fuse_MemoryBound,
    Fuse_ShapeRules, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Fuse_CostInterface>]> {
  let summary = "permutation of dimensions";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`. Moves every
    element once (read and write), no arithmetic. A transpose of a transpose
    folds into one; an identity permutation folds away.

    ```mlir
    %y = fuse.transpose %x permutation = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
    ```
  }];
  let arguments = (ins Fuse_AnyTensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Fuse_AnyTensor:$result);
  let assemblyFormat = "$input `permutation` `=` $permutation attr-dict `:` "
                       "type($input) `->` type($result)";
  let hasFolder = 1;
}

def Fuse_BroadcastToOp : Fuse_Op<"broadcast_to", [Pure, Fuse_MemoryBound,
    DeclareOpInterfaceMethods<Fuse_CostInterface>]> {
  let summary = "NumPy broadcast to a larger shape";
  let description = [{
    Repeats `input` to the result's shape by NumPy's rules: dimensions align
    from the right, and each input dimension is 1 or equal to the result's.
    Reads the input once and writes the result, no arithmetic. A broadcast
    to the input's own type folds away.

    ```mlir
    %y = fuse.broadcast_to %b : tensor<8xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Fuse_AnyTensor:$input);
  let results = (outs Fuse_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fuse_SliceOp : Fuse_Op<"slice", [Pure, Fuse_MemoryBound,
    Fuse_ShapeRules, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Fuse_CostInterface,
                                                  ["getBytesRead"]>]> {
  let summary = "a strided window of a tensor";
  let description = [{
    Result element `[i0, i1, ...]` is input element
    `[offsets[0] + i0 * strides[0], ...]`; the result shape is `sizes`. Every
    list has one entry per dimension; offsets are non-negative, sizes and
    strides positive, and the window stays inside the input. Reads and
    writes only the selected elements.

    ```mlir
    %y = fuse.slice %x offsets = [0, 2] sizes = [4, 3] strides = [1, 2]
        : tensor<4x8xf32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Fuse_AnyTensor:$input, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$sizes, DenseI64ArrayAttr:$strides);
  let results = (outs Fuse_AnyTensor:$result);
  let assemblyFormat = [{
    $input `offsets` `=` $offsets `sizes` `=` $sizes `strides` `=` $strides
    attr-dict `:` type($input) `->` type($result)
  }];
}

def Fuse_ConcatOp : Fuse_Op<"concat", [Pure, Fuse_MemoryBound,
    Fuse_ShapeRules, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Fuse_CostInterface>]> {
  let summary = "join tensors along one axis";
  let description = [{
    Concatenates one or more tensors of the same rank and element type along
    `axis`; all other dimensions agree. Moves every element once.

    ```mlir
    %y = fuse.concat %a, %b axis = 1
        : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<4x10xf32>
    ```
  }];
  let arguments = (ins Variadic<Fuse_AnyTensor>:$inputs,
                       Fuse_NonNegativeI64:$axis);
  let results = (outs Fuse_AnyTensor:$result);
  let assemblyFormat = "$inputs `axis` `=` $axis attr-dict `:` "
                       "functional-type($inputs, results)";
}

def Fuse_GatherOp : Fuse_Op<"gather", [Pure, Fuse_MemoryBound,
    Fuse_ShapeRules, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Fuse_CostInterface,
                                                  ["getBytesRead"]>]> {
  let summary = "index one axis with a tensor of indices";
  let description = [{
    ONNX's Gather: the result shape is
    `data.shape[:axis] ++ indices.shape ++ data.shape[axis+1:]`, and each
    index picks a slice of `data` along `axis`. Indices are i32 or i64; an
    index out of `[0, data.shape[axis])` is undefined behaviour at run time.
    Reads the indices and the gathered elements only.

    ```mlir
    %e = fuse.gather %table, %ids axis = 0
        : (tensor<32000x4096xbf16>, tensor<8x128xi32>) -> tensor<8x128x4096xbf16>
    ```
  }];
  let arguments = (ins Fuse_AnyTensor:$data, Fuse_IndexTensor:$indices,
                       Fuse_NonNegativeI64:$axis);
  let results = (outs Fuse_AnyTensor:$result);
  let assemblyFormat = "$data `,` $indices `axis` `=` $axis attr-dict `:` "
                       "functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Compute-bound
//===----------------------------------------------------------------------===//

include "opfuse/Dialect/Fuse/IR/FuseComputeOps.td"

//===----------------------------------------------------------------------===//
// Communication-bound
//===----------------------------------------------------------------------===//

// Collectives are not Pure: every device must take part, so they are never
// erased, hoisted or merged even when their result looks unused.
def Fuse_AllReduceOp : Fuse_Op<"all_reduce", [Fuse_CommunicationBound,
    AllTypesMatch<["input", "result"]>,
    DeclareOpInterfaceMethods<Fuse_CostInterface, ["getCommunicationBytes"]>]> {
  let summary = "combine a tensor across devices";
  let description = [{
    Every one of `devices` participants contributes a tensor of the same
    shape and receives the elementwise `sum` or `max` of all of them. As a
    ring it sends `2 * (devices - 1) / devices` of the tensor's bytes per
    device and performs `(devices - 1) / devices` of an operation per element.
    With one device it is the identity.

    ```mlir
    %y = fuse.all_reduce sum, %x devices = 8 : tensor<8192x4096xbf16>
    ```
  }];
  let arguments = (ins Fuse_ReduceKind:$kind, Fuse_NumericTensor:$input,
                       Fuse_PositiveI64:$devices);
  let results = (outs Fuse_NumericTensor:$result);
  let assemblyFormat =
      "$kind `,` $input `devices` `=` $devices attr-dict `:` type($result)";
}

def Fuse_AllGatherOp : Fuse_Op<"all_gather", [Fuse_CommunicationBound,
    Fuse_ShapeRules, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Fuse_CostInterface, ["getCommunicationBytes"]>]> {
  let summary = "concatenate the devices' tensors along one axis";
  let description = [{
    Each of `devices` participants contributes its shard; every device
    receives the shards concatenated along `axis` in device order, so that
    dimension grows `devices` times. Sends `(devices - 1) / devices` of the
    result's bytes per device; no arithmetic.

    ```mlir
    %y = fuse.all_gather %x axis = 1 devices = 8 : tensor<128x512xbf16> -> tensor<128x4096xbf16>
    ```
  }];
  let arguments = (ins Fuse_AnyTensor:$input, Fuse_NonNegativeI64:$axis,
                       Fuse_PositiveI64:$devices);
  let results = (outs Fuse_AnyTensor:$result);
  let assemblyFormat = "$input `axis` `=` $axis `devices` `=` $devices "
                       "attr-dict `:` type($input) `->` type($result)";
}

def Fuse_ReduceScatterOp : Fuse_Op<"reduce_scatter", [Fuse_CommunicationBound,
    Fuse_ShapeRules, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Fuse_CostInterface, ["getCommunicationBytes"]>]> {
  let summary = "combine across devices and keep one shard each";
  let description = [{
    The elementwise `sum` or `max` over all `devices` participants, split
    along `axis` into `devices` equal shards, device `i` keeping shard `i`;
    the dimension must divide evenly. Sends `(devices - 1) / devices` of the
    input's bytes per device and performs as many operations per element.

    ```mlir
    %y = fuse.reduce_scatter sum, %x axis = 0 devices = 8 : tensor<8192x4096xbf16> -> tensor<1024x4096xbf16>
    ```
  }];
  let arguments = (ins Fuse_ReduceKind:$kind, Fuse_NumericTensor:$input,
                       Fuse_NonNegativeI64:$axis, Fuse_PositiveI64:$devices);
  let results = (outs Fuse_NumericTensor:$result);
  let assemblyFormat = "$kind `,` $input `axis` `=` $axis `devices` `=` "
                       "$devices attr-dict `:` type($input) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

def Fuse_GroupOp : Fuse_Op<"group", [IsolatedFromAbove, SingleBlock,
    RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<Fuse_CostInterface, ["getBytesRead"]>]> {
  let summary = "operators that become one GPU kernel";
  let description = [{
    An isolated region whose operators are emitted as a single kernel. The
    block's arguments stand for `inputs` (same count and types) and the
    `fuse.yield` that ends it gives the results. Values crossing the group
    boundary are the only device-memory traffic of the kernel: it reads its
    inputs and writes its results once (an input only sliced or gathered
    inside, just the elements those ops read), and its FLOPs are those of
    the ops inside. It carries no operator class: its kernel takes the class of its
    contents.

    ```mlir
    %r = fuse.group (%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>, %c: tensor<8xf32>):
      %0 = fuse.add %a, %c : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
      %1 = fuse.relu %0 : tensor<4x8xf32>
      fuse.yield %1 : tensor<4x8xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Fuse_AnyTensor>:$inputs);
  let results = (outs Variadic<Fuse_AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "`(` $inputs `)` attr-dict `:` "
                       "functional-type($inputs, results) $body";
  let hasRegionVerifier = 1;
}

def Fuse_YieldOp : Fuse_Op<"yield", [Pure, Terminator, ReturnLike,
    HasParent<"GroupOp">]> {
  let summary = "the results of a fuse.group";
  let description = [{
    Ends the body of a `fuse.group`; its operands become the group's results,
    in order and with the same types.

    ```mlir
    fuse.yield %0, %1 : tensor<4x8xf32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Variadic<Fuse_AnyTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
}

#endif // OPFUSE_DIALECT_FUSE_IR_FUSEOPS_TD
