#!/usr/bin/env bash
#===- scripts/check-format.sh - The C++ sources are clang-formatted --------===#
#
# Fails, listing the files and the command that fixes them, when a C++ file
# under lib/ include/ tools/ unittests/ bench/ differs from what
# clang-format-22 makes of it with the repository's .clang-format (LLVM
# style). make check runs it through ctest; scripts/install-deps.sh
# installs clang-format-22.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
CLANG_FORMAT=${CLANG_FORMAT:-$(command -v clang-format-22 || true)}
if [ -z "$CLANG_FORMAT" ]; then
  echo "check-format: clang-format-22 not found (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files 'lib/*.cpp' 'lib/*.h' 'include/*.h' \
  'tools/*.cpp' 'unittests/*.cpp' 'unittests/*.h' 'bench/*.cpp' 2>/dev/null ||
  find lib include tools unittests bench -name '*.cpp' -o -name '*.h')
unformatted=()
for f in "${files[@]}"; do
  if ! "$CLANG_FORMAT" --dry-run --Werror "$f" >/dev/null 2>&1; then
    unformatted+=("$f")
  fi
done
if [ ${#unformatted[@]} -ne 0 ]; then
  printf 'check-format: not clang-formatted: %s\n' "${unformatted[@]}"
  echo "check-format: fix with: $CLANG_FORMAT -i ${unformatted[*]}"
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
