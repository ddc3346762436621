#!/usr/bin/env bash
source bench/device-env.sh
export PATH=$PWD/.device-pack/llvm-tools:$PATH
timeout 240 python3 .device-pack/lit/lit.py -v test/GPU --param opfuse_build=$PWD/build --param llvm_tools=$PWD/.device-pack/llvm-tools 2>&1 | grep -E "^(PASS|FAIL)|error:" | head
echo "== sanitizer conv"; timeout 100 compute-sanitizer --tool memcheck build/bin/opt-fuse test/GPU/Inputs/conv.mlir --function=stem_stride2 --check 2>&1 | tail -1
echo "== conv_resnet check"; timeout 150 build/bin/opt-fuse bench/graphs/conv_resnet.mlir --check 2>&1 | grep -E "check output|rror" | cut -c1-200
echo "== mlp bench"; timeout 60 build/bin/opt-fuse examples/mlp.mlir --bench --iters 50 2>&1 | grep -E "latency|allocated|mlp_k"
timeout 300 python3 bench/gemm_compare.py --iters 100 2>&1 | tail -12
