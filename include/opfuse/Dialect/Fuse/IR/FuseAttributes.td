//===- FuseAttributes.td - The IR contract between passes --*- tablegen -*-===//
//
// The attributes opfuse's passes write and later stages read: the GPU
// target, a GEMM kernel's tiling and schedule, TMA tensor maps and the
// memory plan. Each has a typed definition and a verifier; the dialect
// declares which operation attribute holds which (FuseDialect.td).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_IR_FUSEATTRIBUTES_TD
#define OPFUSE_DIALECT_FUSE_IR_FUSEATTRIBUTES_TD

include "opfuse/Dialect/Fuse/IR/FuseDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class Fuse_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Fuse_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// A double printed so that it reads back bit for bit.
class Fuse_F64ParameterOf<string summary> : APFloatParameter<summary> {
  let parser = "::opfuse::fuse::parseF64Parameter($_parser)";
  let printer = "$_printer.printFloat($_self)";
}
def Fuse_F64Parameter : Fuse_F64ParameterOf<"a double">;

// One that may be left out: then the default, and not printed.
class Fuse_DefaultF64Parameter<string default>
    : Fuse_F64ParameterOf<"a double with a default"> {
  let defaultValue = default;
}

//===----------------------------------------------------------------------===//
// Target
//===----------------------------------------------------------------------===//

def Fuse_TargetAttr : Fuse_Attr<"Target", "target"> {
  let summary = "The GPU a module is compiled for, and its numbers";
  let description = [{
    The GPU every pass compiles and predicts for: the SM architecture of
    the kernels (`chip`), and the figures of the roofline cost model and
    the GEMM tile model (SMs, L2 and shared memory, bandwidths in bytes/s,
    throughputs in FLOP/s, the launch overhead in seconds, efficiencies).
    `fuse-set-target` writes it on the module as `fuse.target` from a
    built-in name or a target file (docs/target-format.md); a module
    without one is compiled for the built-in `h200`.

    ```mlir
    module attributes {fuse.target = #fuse.target<name = "h200",
        description = "NVIDIA H200 SXM 141GB", chip = "sm_90",
        source = "datasheet", sm_count = 132, ...>} { ... }
    ```
  }];
  let parameters = (ins
    StringRefParameter<"short name (a100, h100, h200 or a file's)">:$name,
    StringRefParameter<"what the numbers describe">:$description,
    StringRefParameter<"SM architecture of the kernels">:$chip,
    StringRefParameter<"where the numbers come from">:$source,
    "int64_t":$sm_count,
    "int64_t":$l2_bytes,
    "int64_t":$shared_memory_per_sm_bytes,
    Fuse_F64Parameter:$hbm_bandwidth,
    Fuse_F64Parameter:$l2_bandwidth,
    Fuse_F64Parameter:$link_bandwidth,
    Fuse_F64Parameter:$fp32_flops,
    Fuse_F64Parameter:$tf32_tensor_flops,
    Fuse_F64Parameter:$fp16_tensor_flops,
    Fuse_F64Parameter:$launch_overhead,
    Fuse_F64Parameter:$memory_efficiency,
    Fuse_F64Parameter:$compute_efficiency,
    Fuse_F64Parameter:$tensor_efficiency,
    Fuse_DefaultF64Parameter<
        "::llvm::APFloat(::opfuse::GpuTarget::kDefaultKernelLatency)">:
        $kernel_latency
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The target as the cost model and the emitters use it.
    ::opfuse::GpuTarget getTarget() const;
    static TargetAttr get(::mlir::MLIRContext *context,
                          const ::opfuse::GpuTarget &target);
  }];
}

//===----------------------------------------------------------------------===//
// GEMM kernels
//===----------------------------------------------------------------------===//

def Fuse_MatmulTilingParameter
    : AttrParameter<"::opfuse::MatmulTiling", "a GEMM kernel's tiles">;

// A list of integers in square brackets.
def Fuse_I64ArrayParameter : ArrayRefParameter<"int64_t"> {
  let parser = "::opfuse::fuse::parseI64ArrayParameter($_parser)";
  let printer = "::opfuse::fuse::printI64ArrayParameter($_printer, $_self)";
}

def Fuse_MatmulTilingAttr : Fuse_Attr<"MatmulTiling", "tiling"> {
  let summary = "The tiles of a GEMM kernel";
  let description = [{
    The tensor-core instruction and tiles of a GEMM kernel, spelled as the
    `--matmul-tiling` option spells them: `[wgmma:]BMxBNxBK/WMxWN/S[/kP]`
    is a BM x BN output tile per block, K slices of BK, WM x WN warps
    (mma.sync) or warpgroups (`wgmma:`, sm_90), S shared-memory stages,
    and optionally K split among P blocks per output tile (with `wgmma:`,
    into equal parts, fed by cp.async, one tile per block):
    each stores its f32 partial sums in a workspace the runtime provides,
    and the last to finish adds them in split order and runs the epilogue.
    The
    parser checks what every kernel needs (whole MMAs per warp, at most
    1024 threads, the shared memory of one block); whether the chip has the
    instruction is checked where the kernel is emitted.

    As `fuse.matmul_tiling` on a `fuse.group` holding a contraction (or on
    a lone `fuse.matmul` or `fuse.conv2d`) it fixes that kernel's tiling;
    `convert-fuse-to-gpu` leaves every GEMM group with the tiling it used.

    ```mlir
    %0 = fuse.matmul %a, %b {fuse.matmul_tiling = #fuse.tiling<"wgmma:128x256x64/2x1/4">}
        : (tensor<8192x4096xbf16>, tensor<4096x8192xbf16>) -> tensor<8192x8192xbf16>
    ```
  }];
  let parameters = (ins Fuse_MatmulTilingParameter:$tiling);
  // A string, parsed once: its error is the option's.
  let hasCustomAssemblyFormat = 1;
}

def Fuse_GemmScheduleKind : I32EnumAttr<"GemmScheduleKind",
    "how a GEMM kernel's threads share the work", [
      I32EnumAttrCase<"mma_sync", 0>,
      I32EnumAttrCase<"tf32", 1>,
      I32EnumAttrCase<"fma", 2>,
      I32EnumAttrCase<"wgmma", 3>,
      I32EnumAttrCase<"cooperative", 4>,
      I32EnumAttrCase<"warp_specialized", 5>,
      I32EnumAttrCase<"ping_pong", 6>
    ]> {
  let cppNamespace = "::opfuse::fuse";
  let genSpecializedAttr = 0;
}

def Fuse_GemmOperandFeed : I32EnumAttr<"GemmOperandFeed",
    "how a GEMM kernel's operands reach shared memory", [
      I32EnumAttrCase<"cp_async", 0>,
      I32EnumAttrCase<"tma", 1>
    ]> {
  let cppNamespace = "::opfuse::fuse";
  let genSpecializedAttr = 0;
}

def Fuse_GemmScheduleAttr : Fuse_Attr<"GemmSchedule", "gemm_schedule"> {
  let summary = "How a GEMM kernel runs: its schedule and operand feed";
  let description = [{
    Decided by `convert-fuse-to-gpu` before a GEMM kernel is emitted, from
    its tiling, its operands and the pass's options, and recorded on the
    group as `fuse.gemm_schedule`.

    The schedule: `mma_sync` (warps of mma.sync m16n8k16 on bf16/f16),
    `tf32` (f32 operands as TF32 mma.sync), `fma` (f32 operands on FMAs in
    the mma.sync pipeline), `wgmma` (warpgroup MMA, one tile per block),
    `cooperative` (persistent warpgroup MMA whose warpgroups also copy),
    `warp_specialized` (persistent, a producer warpgroup copies) and
    `ping_pong` (warp-specialised, the MMA warpgroups take alternate
    tiles). The feed: `cp_async` (every thread's copies) or `tma` (one
    thread's bulk tensor copies through `fuse.tensor_maps`).

    ```mlir
    fuse.gemm_schedule = #fuse.gemm_schedule<warp_specialized, tma>
    ```
  }];
  let parameters = (ins
    EnumParameter<Fuse_GemmScheduleKind>:$kind,
    EnumParameter<Fuse_GemmOperandFeed>:$feed
  );
  let assemblyFormat = "`<` $kind `,` $feed `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether one block walks several tiles (cooperative and later).
    bool isPersistent() const;
    /// The schedule's name in the launch plan and reports
    /// ("warp-specialized"); empty for kernels of one tile per block.
    ::llvm::StringRef getPlanName() const;
  }];
}

def Fuse_TensorMapAttr : Fuse_Attr<"TensorMap", "tensor_map"> {
  let summary = "A TMA tensor map the runtime encodes for a kernel";
  let description = [{
    A view of the kernel's input number `input` that the TMA unit copies
    boxes of: `dims` innermost first, the byte `strides` of every dimension
    but the innermost, and the `box` one copy fills (128-byte swizzled,
    zeros outside the tensor). The view starts `offset` bytes (a multiple
    of 16, 0 when omitted) into the buffer: a slice of a fused QKV
    projection is one. The runtime encodes it for the buffer's address
    (`cuTensorMapEncodeTiled`) and passes the kernel a pointer to it after
    its outputs. A group's `fuse.tensor_maps` lists them in parameter order.

    ```mlir
    #fuse.tensor_map<input = 0, dims = [4096, 8192], strides = [8192],
                     box = [64, 128]>
    #fuse.tensor_map<input = 0, dims = [128, 2048, 16], strides = [12288, 256],
                     box = [64, 128, 1], offset = 4096>
    ```
  }];
  let parameters = (ins
    "int64_t":$input,
    Fuse_I64ArrayParameter:$dims,
    Fuse_I64ArrayParameter:$strides,
    Fuse_I64ArrayParameter:$box,
    DefaultValuedParameter<"int64_t", "0">:$offset
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Memory plan
//===----------------------------------------------------------------------===//

def Fuse_MemoryPlanAttr : Fuse_Attr<"MemoryPlan", "memory_plan"> {
  let summary = "The buffer plan of a function, as fuse-plan-memory made it";
  let description = [{
    Written on a function as `fuse.memory` by `fuse-plan-memory`, beside
    each kernel's `fuse.offsets`: the arena's bytes, the max-live lower
    bound of the kernel order, the naive sum of one allocation per buffer,
    how many outputs were written in place, the bytes the caller owns
    (inputs, constants, outputs unless `plan_outputs`), and which order and
    placement heuristics won (docs/memory-planning.md).

    ```mlir
    func.func @f(...) attributes {fuse.memory = #fuse.memory_plan<arena = 512,
        lower_bound = 512, naive = 1024, in_place = 0, inputs = 4096,
        constants = 0, outputs = 4096, plan_outputs = false,
        order = "program", placement = "best-fit">} { ... }
    ```
  }];
  let parameters = (ins
    "int64_t":$arena,
    "int64_t":$lower_bound,
    "int64_t":$naive,
    "int64_t":$in_place,
    "int64_t":$inputs,
    "int64_t":$constants,
    "int64_t":$outputs,
    "bool":$plan_outputs,
    StringRefParameter<"the kernel order's heuristic">:$order,
    StringRefParameter<"the placement's heuristic">:$placement
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // OPFUSE_DIALECT_FUSE_IR_FUSEATTRIBUTES_TD
