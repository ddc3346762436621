# -*- Python -*-
# lit configuration for opfuse: opfuse-opt and opt-fuse from the build,
# FileCheck and not from LLVM 22's tools directory.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "OPFUSE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.opfuse_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(
    ("%examples", os.path.join(config.opfuse_src_root, "examples")))
config.substitutions.append(
    ("%inputs", os.path.join(config.test_source_root, "opt-fuse", "Inputs")))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.opfuse_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["opfuse-opt", "opt-fuse"], tool_dirs)
llvm_config.with_environment("PATH", config.opfuse_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
