# Adds to a one-kernel launch plan (argv[1], written to argv[2]) two
# outputs after the kernel's: a copy of its result, and a buffer every byte
# of which a memset sets to 0x3f.
import json
import sys

plan = json.load(open(sys.argv[1]))
buffers = plan["buffers"]
result = plan["outputs"][0]
template = dict(buffers[result])
template.pop("offset", None)
for name in ("copy", "filled"):
    buffer = dict(template, id=len(buffers), name=name, role="output")
    buffers.append(buffer)
copy, filled = len(buffers) - 2, len(buffers) - 1
plan["steps"] += [
    {"kind": "copy", "src": result, "dst": copy},
    {"kind": "memset", "buffer": filled, "value": 0x3F},
]
plan["outputs"] += [copy, filled]
json.dump(plan, open(sys.argv[2], "w"), indent=2)
