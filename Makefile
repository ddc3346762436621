# opfuse: the two commands of the README, and the steps they are made of.
#   make demo   install dependencies if missing, configure, build, show an example
#               model and its fusion summary (kernels before -> after, PTX size)
#   make check  the same setup, then every test suite through ctest
#   make fuzz   N random graphs (default 1000, seeds from FIRST, default 0)
#               through --check-fusion and --emit=ptx; failures and their
#               reduced reproducers go to fuzz-failures/
#   make check-asan  every suite again, built by clang-22 with AddressSanitizer
#               and UndefinedBehaviorSanitizer (in build-asan/)
# The build uses Ninja, and ccache when present (scripts/install-deps.sh
# installs both).

BUILD_DIR ?= build
LLVM_ROOT ?= /usr/lib/llvm-22
BUILD_TYPE ?= Release
DEMO_MODEL ?= examples/ew_chain.mlir
N ?= 1000
FIRST ?= 0
ASAN_DIR ?= build-asan

.PHONY: all deps configure build check demo docs fuzz check-asan clean

all: build

deps:
	@bash scripts/install-deps.sh

# Configure once; afterwards the build tool reruns CMake when a CMakeLists
# changes. The launcher is decided here, after deps may have installed ccache.
$(BUILD_DIR)/build.ninja:
	@launcher=""; \
	if command -v ccache >/dev/null 2>&1; then \
	  launcher="-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"; \
	fi; \
	cmake -G Ninja -S . -B $(BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DMLIR_DIR=$(LLVM_ROOT)/lib/cmake/mlir \
	  -DLLVM_DIR=$(LLVM_ROOT)/lib/cmake/llvm \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_ROOT)/bin/lit \
	  $$launcher

configure: deps
	@$(MAKE) --no-print-directory $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR)

# Chromium too: test/opt-fuse/svg-browser.test looks at the pictures in it.
check: build
	@bash scripts/install-deps.sh --browser
	cd $(BUILD_DIR) && ctest --output-on-failure

# The verified model, then what fusion makes of it: kernels and bytes before
# and after, and the size of the PTX.
demo: build
	@echo "== opt-fuse $(DEMO_MODEL)"
	@$(BUILD_DIR)/bin/opt-fuse $(DEMO_MODEL)
	@echo "== opt-fuse $(DEMO_MODEL) --emit=summary"
	@$(BUILD_DIR)/bin/opt-fuse $(DEMO_MODEL) --emit=summary

fuzz: build
	python3 scripts/fuzz-graphs.py --opt-fuse $(BUILD_DIR)/bin/opt-fuse \
	  --seeds $(FIRST)-$$(($(FIRST) + $(N) - 1)) --keep fuzz-failures

# LLVM's CMake adds the sanitizer flags (LLVM_USE_SANITIZER; its UBSan flags
# are empty outside LLVM's own tree, so they are given: no vptr or function
# checks, LLVM being built without RTTI); libMLIR.so is not instrumented, so
# the checks that need both sides are off: container overflow, and the
# poisoning LLVM's BumpPtrAllocator does in instrumented inline code (memory
# handed out by libMLIR's uninstrumented copy stays poisoned). Every finding
# stops the test that hit it, and so does a leak (LeakSanitizer).
$(ASAN_DIR)/build.ninja:
	@bash scripts/install-deps.sh --sanitizers
	@launcher=""; \
	if command -v ccache >/dev/null 2>&1; then \
	  launcher="-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"; \
	fi; \
	cmake -G Ninja -S . -B $(ASAN_DIR) \
	  -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
	  -DLLVM_USE_SANITIZER="Address;Undefined" \
	  -DLLVM_UBSAN_FLAGS="-fsanitize=undefined -fno-sanitize=vptr,function -fno-sanitize-recover=all" \
	  -DOPFUSE_LIBFUZZER=ON \
	  -DMLIR_DIR=$(LLVM_ROOT)/lib/cmake/mlir \
	  -DLLVM_DIR=$(LLVM_ROOT)/lib/cmake/llvm \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_ROOT)/bin/lit \
	  $$launcher

check-asan: deps
	@$(MAKE) --no-print-directory $(ASAN_DIR)/build.ninja
	cmake --build $(ASAN_DIR)
	cd $(ASAN_DIR) && \
	  ASAN_OPTIONS=detect_container_overflow=0:allow_user_poisoning=0:detect_leaks=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure

# Refresh the generated dialect reference under docs/dialect/.
docs: build
	cmake --build $(BUILD_DIR) --target update-docs

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR)
