"""The environment to run one opfuse build's binary in: its own libopfuse
(../lib beside the binary, where that exists) ahead of any other on
LD_LIBRARY_PATH, so that an A/B of two builds never runs one library twice.
"""
import os


def env_for(binary):
    env = dict(os.environ)
    lib = os.path.join(os.path.dirname(os.path.abspath(binary)), "..", "lib")
    if os.path.isdir(lib):
        env["LD_LIBRARY_PATH"] = lib + os.pathsep + env.get("LD_LIBRARY_PATH",
                                                            "")
    return env
