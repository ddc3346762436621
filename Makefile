# opfuse: the two commands of the README, and the steps they are made of.
#   make demo   install dependencies if missing, configure, build, show an example
#               model and its fusion summary (kernels before -> after, PTX size)
#   make check  the same setup, then every test suite through ctest
# The build uses Ninja, and ccache when present (scripts/install-deps.sh
# installs both).

BUILD_DIR ?= build
LLVM_ROOT ?= /usr/lib/llvm-22
BUILD_TYPE ?= Release
DEMO_MODEL ?= examples/ew_chain.mlir

.PHONY: all deps configure build check demo docs clean

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

check: build
	cd $(BUILD_DIR) && ctest --output-on-failure

# The verified model, then what fusion makes of it: kernels and bytes before
# and after, and the size of the PTX.
demo: build
	@echo "== opt-fuse $(DEMO_MODEL)"
	@$(BUILD_DIR)/bin/opt-fuse $(DEMO_MODEL)
	@echo "== opt-fuse $(DEMO_MODEL) --emit=summary"
	@$(BUILD_DIR)/bin/opt-fuse $(DEMO_MODEL) --emit=summary

# Refresh the generated dialect reference under docs/dialect/.
docs: build
	cmake --build $(BUILD_DIR) --target update-docs

clean:
	rm -rf $(BUILD_DIR)
