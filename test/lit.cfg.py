# -*- Python -*-
# lit configuration for opfuse: opfuse-opt, opt-fuse and opfuse-run from the
# build, FileCheck and not from LLVM 22's tools directory.
#
# Features: `ptxas` when CUDA's ptxas is found (emitted PTX is assembled),
# `gpu` when nvidia-smi lists a GPU (test/GPU runs). On a machine without a
# CMake build (the GPU machine), run `lit test/GPU --param opfuse_build=build
# --param llvm_tools=DIR` instead of the configured suite.

import os
import shutil
import subprocess
import sys

import lit.formats

if not hasattr(config, "opfuse_obj_root"):
    # Standalone: no lit.site.cfg.py from CMake.
    source_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    config.opfuse_src_root = source_root
    config.opfuse_obj_root = os.path.abspath(
        lit_config.params.get("opfuse_build", os.path.join(source_root, "build")))
    config.opfuse_tools_dir = os.path.join(config.opfuse_obj_root, "bin")
    config.llvm_tools_dir = lit_config.params.get(
        "llvm_tools", "/usr/lib/llvm-22/bin")
    config.lit_tools_dir = config.llvm_tools_dir
    import lit.llvm
    lit.llvm.initialize(lit_config, config)

from lit.llvm import llvm_config

config.name = "OPFUSE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.opfuse_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "corpus"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(
    ("%examples", os.path.join(config.opfuse_src_root, "examples")))
config.substitutions.append(
    ("%inputs", os.path.join(config.test_source_root, "opt-fuse", "Inputs")))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(
    ("%scripts", os.path.join(config.opfuse_src_root, "scripts")))

llvm_config.with_system_environment(
    ["HOME", "INCLUDE", "LIB", "TMP", "TEMP", "LD_LIBRARY_PATH",
     "CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"])
llvm_config.use_default_substitutions()

tool_dirs = [config.opfuse_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["opfuse-opt", "opt-fuse", "opfuse-run"],
                                   tool_dirs)
llvm_config.with_environment("PATH", config.opfuse_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# Graphviz's dot renders --emit=graph (scripts/install-deps.sh installs it).
if shutil.which("dot"):
    config.available_features.add("graphviz")
# Chromium renders the SVG pictures for a look in a real browser
# (scripts/install-deps.sh --browser, which make check runs).
if shutil.which("chromium"):
    config.available_features.add("chromium")
ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
if os.access(ptxas, os.X_OK):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))


def has_gpu():
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True,
                                text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return listed.returncode == 0 and "GPU" in listed.stdout


if has_gpu():
    config.available_features.add("gpu")
