#!/usr/bin/env bash
# Runs every example and benchmark graph (and test/GPU/Inputs/sanitize/, the
# kernels of graphs too large for racecheck at smaller sizes) once on the GPU under
# compute-sanitizer: memcheck (out-of-bounds and misaligned accesses, leaks
# of device memory) and racecheck (shared-memory hazards between threads).
# A graph is clean when the tool reports no error and opt-fuse succeeds;
# exit 4 (an op without an emitter, e.g. a collective) is listed, not failed.
#   scripts/gpu-sanitize.sh [--opt-fuse PATH] [--tools "memcheck racecheck"]
#                           [--jobs N] [GRAPH...]
# Logs go to ${SANITIZE_LOGS:-sanitize-logs}/; the last line is the summary.
# A run longer than ${SANITIZE_TIMEOUT:-300} seconds counts as a failure.
set -uo pipefail
opt_fuse=build/bin/opt-fuse
tools="memcheck racecheck"
jobs=4
graphs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --opt-fuse) opt_fuse=$2; shift 2 ;;
    --tools) tools=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -*) echo "gpu-sanitize.sh: unknown option $1" >&2; exit 2 ;;
    *) graphs+=("$1"); shift ;;
  esac
done
if [ ${#graphs[@]} -eq 0 ]; then
  graphs=(examples/*.mlir examples/blocks/*.mlir bench/graphs/*.mlir
          test/GPU/Inputs/sanitize/*.mlir)
fi
sanitizer=$(command -v compute-sanitizer ||
            ls "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" 2>/dev/null)
if [ -z "$sanitizer" ]; then
  echo "gpu-sanitize.sh: compute-sanitizer not found (PATH, \$CUDA_HOME/bin)" >&2
  exit 5
fi
logs=${SANITIZE_LOGS:-sanitize-logs}
mkdir -p "$logs"
export opt_fuse sanitizer logs

# One graph under one tool; prints "TOOL GRAPH: clean|FAIL|unsupported (s)".
one() {
  tool=$1 graph=$2
  log="$logs/$(echo "$graph" | tr / _).$tool.log"
  start=$(date +%s)
  # A model opt-fuse cannot compile (exit 4: a collective) never reaches the
  # GPU; compute-sanitizer would only report its exit code as 255.
  "$opt_fuse" "$graph" --emit=plan -o /dev/null >"$log" 2>&1
  if [ $? -eq 4 ]; then
    echo "$tool $graph: unsupported (exit 4: $(grep -m1 'error:' "$log"))"
    return
  fi
  timeout "${SANITIZE_TIMEOUT:-300}" \
    "$sanitizer" --tool "$tool" --error-exitcode 99 --print-limit 20 \
    "$opt_fuse" "$graph" --bench --warmup 0 --iters 1 >"$log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  if [ $rc -eq 0 ] && grep -q "ERROR SUMMARY: 0 errors\|RACECHECK SUMMARY: 0 hazards" "$log"; then
    echo "$tool $graph: clean (${took} s)"
  elif [ $rc -eq 124 ]; then
    echo "$tool $graph: TIMEOUT (${SANITIZE_TIMEOUT:-300} s; $log)"
  else
    echo "$tool $graph: FAIL (exit $rc, ${took} s; $log)"
  fi
}
export -f one

for tool in $tools; do
  for graph in "${graphs[@]}"; do echo "$tool $graph"; done
done | xargs -P "$jobs" -L 1 bash -c 'one "$0" "$1"' | tee "$logs/summary.txt"
clean=$(grep -c ": clean" "$logs/summary.txt")
failed=$(grep -c ": FAIL\|: TIMEOUT" "$logs/summary.txt")
unsupported=$(grep -c ": unsupported" "$logs/summary.txt")
echo "gpu-sanitize: $clean clean, $failed failed or timed out, $unsupported unsupported"
[ "$failed" -eq 0 ]
