//===- FastMath.cpp - f32 functions on the SM's own instructions ----------===//
//
// libdevice's erff evaluates one polynomial whose coefficients it selects
// by range, then branches around ex2.approx for |x| >= 1. The branch splits
// an elementwise kernel into basic blocks, and LLVM then sinks a thread's
// later loads past the earlier vectors' arithmetic, so fewer bytes are in
// flight (an f32 GELU-erf chain stayed near 80% of copy). This erf has no
// branch: both pieces are computed and one is selected.
//
// A GELU (erf) needs neither erf piece: it is x Phi(x) with Phi one
// polynomial in an exponent, fewer instructions and no cancellation.
//
//===----------------------------------------------------------------------===//

#include "FastMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace opfuse {

Value f32Constant(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

Value emitPtxUnaryF32(OpBuilder &b, Location loc, StringRef opcode, Value x) {
  return LLVM::InlineAsmOp::create(
             b, loc, b.getF32Type(), ValueRange{x}, (opcode + " $0, $1;").str(),
             "=f,f", /*has_side_effects=*/false,
             /*is_align_stack=*/false, LLVM::TailCallKind::None,
             LLVM::AsmDialectAttr(), ArrayAttr())
      .getResult(0);
}

namespace {

/// c[0] + c[1] x + ... by Horner's rule, one FMA a coefficient.
Value horner(OpBuilder &b, Location loc, Value x, ArrayRef<float> c) {
  Value r = f32Constant(b, loc, c.back());
  for (float coefficient : llvm::reverse(c.drop_back()))
    r = math::FmaOp::create(b, loc, r, x, f32Constant(b, loc, coefficient));
  return r;
}

// Minimax fits by bench/fit_erf_f32.py (weighted for the relative error of
// erf), rounded to f32. Below 1: erf(x) = x + x q(x^2), q's error 4.0e-8
// of erf. From 1: erf(t) = 1 - 2^(-t (1 + p(t))), p's error 2.5e-9 of erf
// on [1, 4]; erf rounds to 1 in f32 from 3.92 on.
constexpr float kSmall[] = {0x1.06eba2p-3f,  -0x1.812674p-2f, 0x1.ce0942p-4f,
                            -0x1.b5a358p-6f, 0x1.4246c4p-8f,  -0x1.273f7cp-11f};
constexpr float kLarge[] = {0x1.41901ap-1f,  0x1.d5a9c6p-1f, 0x1.369490p-3f,
                            -0x1.0d71eep-5f, 0x1.2d5234p-8f, -0x1.3ea804p-12f};

} // namespace

Value emitErfF32(OpBuilder &b, Location loc, Value x) {
  Value small = math::FmaOp::create(
      b, loc, x, horner(b, loc, arith::MulFOp::create(b, loc, x, x), kSmall),
      x);
  // t clamped to 4 so that the polynomial never overflows (erf(inf) is 1);
  // minimumf keeps a NaN, which then reaches the result.
  Value t = math::AbsFOp::create(b, loc, x);
  Value clamped =
      arith::MinimumFOp::create(b, loc, t, f32Constant(b, loc, 4.0f));
  Value minusT = arith::NegFOp::create(b, loc, clamped);
  Value exponent = math::FmaOp::create(b, loc, horner(b, loc, clamped, kLarge),
                                       minusT, minusT);
  Value tailValue = emitPtxUnaryF32(b, loc, "ex2.approx.ftz.f32", exponent);
  Value large = math::CopySignOp::create(
      b, loc,
      arith::SubFOp::create(b, loc, f32Constant(b, loc, 1.0f), tailValue), x);
  Value isSmall = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, t,
                                        f32Constant(b, loc, 1.0f));
  return arith::SelectOp::create(b, loc, isSmall, small, large);
}

namespace {

// bench/fit_gelu_erf.py: Phi(-u) = 2^-(1 + u P(min(u, T))), P a minimax fit
// of the exponent's absolute error on [0, T]. Phi's relative error bound:
// 6.7e-4 for bf16 (degree 6, T = 13.5: bf16 keeps f32's range), 4.9e-5 for
// f16 (degree 5, T = 6: GELU rounds to 0 in f16 below -6), 1.9e-8 for f32
// (degree 10, T = 5.5: beyond, |GELU| < 1.1e-7).
constexpr float kGeluBF16[] = {
    0x1.251468p+0f,  0x1.e311c6p-2f,  0x1.6e112p-5f,  -0x1.66ec34p-8f,
    0x1.b596c6p-12f, -0x1.27275p-16f, 0x1.4e7f1ap-22f};
constexpr float kGeluF16[] = {0x1.2685e2p+0f,  0x1.d7ec9ep-2f,
                              0x1.a538ap-5f,   -0x1.dbd076p-8f,
                              0x1.44ebf2p-11f, -0x1.8924eep-16f};
constexpr float kGeluF32[] = {
    0x1.26aedp+0f,    0x1.d63cc6p-2f,  0x1.ada3e4p-5f,   -0x1.c68018p-8f,
    -0x1.0abb8ep-15f, 0x1.4571ap-12f,  -0x1.826d76p-14f, 0x1.058b5ap-16f,
    -0x1.ba9c7p-20f,  0x1.b40abep-24f, -0x1.7ecc46p-29f};

} // namespace

Value emitGeluErf(OpBuilder &b, Location loc, Value x, Type result) {
  ArrayRef<float> coefficients = kGeluF32;
  double limit = 5.5;
  if (result.isBF16()) {
    coefficients = kGeluBF16;
    limit = 13.5;
  } else if (result.isF16()) {
    coefficients = kGeluF16;
    limit = 6.0;
  }
  Value u = math::AbsFOp::create(b, loc, x);
  // Clamped so that the polynomial never overflows; beyond T the exponent
  // grows linearly in u and 2^-E still falls to 0. A NaN stays NaN.
  Value clamped =
      arith::MinimumFOp::create(b, loc, u, f32Constant(b, loc, limit));
  Value minusExponent = math::FmaOp::create(
      b, loc, u,
      arith::NegFOp::create(b, loc, horner(b, loc, clamped, coefficients)),
      f32Constant(b, loc, -1.0));
  // bf16 is fitted down to f32's smallest normals, so its ex2 does not
  // flush (as for exp, ScalarOps.cpp); f16's and f32's fits end long
  // before, where GELU is below 1.1e-7.
  Value tail = emitPtxUnaryF32(
      b, loc, result.isBF16() ? "ex2.approx.f32" : "ex2.approx.ftz.f32",
      minusExponent);
  // Phi(x) = 2^-E on the negative side, 1 - 2^-E (at least 1/2, so no
  // cancellation) on the other; -0 and NaN take the second.
  Value negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                         f32Constant(b, loc, 0.0));
  Value phi = arith::SelectOp::create(
      b, loc, negative, tail,
      arith::SubFOp::create(b, loc, f32Constant(b, loc, 1.0), tail));
  return arith::MulFOp::create(b, loc, x, phi);
}

} // namespace opfuse
