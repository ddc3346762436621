#!/usr/bin/env bash
# Prints the --check line of every model in docs/numerics.md's tables, run
# on this machine's GPU (from the repository root, with build/bin built):
#   bash bench/check_tables.sh
set -u
opt=${OPT_FUSE:-build/bin/opt-fuse}
run() { # label, then opt-fuse arguments
  local label=$1; shift
  "$opt" "$@" --check 2>&1 | sed -n 's/^check output \(#[0-9]*\) (\([^,]*\), [0-9]* elements): /\1 \2: /p' |
    sed "s|^|$label |"
}
run ew_chain examples/ew_chain.mlir
run ew_chain-unfused examples/ew_chain.mlir --no-fuse
run bias_gelu_residual examples/bias_gelu_residual.mlir
run bias_gelu_residual-unfused examples/bias_gelu_residual.mlir --no-fuse
run softmax examples/softmax.mlir
run layernorm examples/layernorm.mlir
for f in softmax_1e4 softmax_65536 softmax_rows_of_1 softmax_bf16_1000 \
         layernorm_mean_1e4 layernorm_32768 layernorm_bf16 rms_norm_bf16 \
         bias_residual_layernorm row_stats reduce_axes reduce_i32 reduce_i64; do
  run "$f" test/GPU/Inputs/reductions.mlir --function=$f
done
for f in bias_gelu ragged ragged_transposed transpose_a k2_odd_n odd_everything batched_broadcast \
         long_k silu_residual_cast f32_ragged; do
  run "$f" test/GPU/Inputs/matmul.mlir --function=$f
done
run f32_ragged-tf32 test/GPU/Inputs/matmul.mlir --function=f32_ragged --allow-tf32
run mlp-small test/opt-fuse/Inputs/mlp-small.mlir
for f in resnet_3x3 stem_stride2 dilated_residual asymmetric_f16; do
  run "$f" test/GPU/Inputs/conv.mlir --function=$f
done
run conv_resnet bench/graphs/conv_resnet.mlir
for f in gpt_small llama_small gpt_decode_small llama_decode_small resnet_small \
         gpt_small_f32 llama_small_f32; do
  run "$f" test/GPU/Inputs/blocks.mlir --function=$f
  run "$f-unfused" test/GPU/Inputs/blocks.mlir --function=$f --no-fuse
done
for f in gpt_prefill llama_prefill gpt_decode llama_decode resnet_bottleneck; do
  run "$f" examples/blocks/$f.mlir
done
