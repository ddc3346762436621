#!/usr/bin/env bash
source bench/device-env.sh
export PATH=$PWD/.device-pack/llvm-tools:$PATH
echo "== mlp-small"; timeout 60 build/bin/opt-fuse test/opt-fuse/Inputs/mlp-small.mlir --check 2>&1 | grep -E "check output|rror|worst" | head -3
timeout 60 build/bin/opt-fuse test/opt-fuse/Inputs/mlp-small.mlir --check --no-fuse 2>&1 | grep -E "check output|rror|worst" | head -3
timeout 300 python3 .device-pack/lit/lit.py -v test/GPU --param opfuse_build=$PWD/build --param llvm_tools=$PWD/.device-pack/llvm-tools 2>&1 | grep -E "PASS|FAIL|error:" | head -20
for f in bias_gelu ragged ragged_transposed transpose_a odd_everything batched_broadcast long_k silu_residual_cast; do echo "== $f"; build/bin/opt-fuse test/GPU/Inputs/matmul.mlir --function=$f --check 2>&1 | grep "check output" | cut -c1-190; done
