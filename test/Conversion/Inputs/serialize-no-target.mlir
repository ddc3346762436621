// A kernel module without a target (test/Conversion/fuse-serialize-kernels.mlir).
module attributes {gpu.container_module} {
  gpu.module @untargeted {
    llvm.func @k(%out: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
