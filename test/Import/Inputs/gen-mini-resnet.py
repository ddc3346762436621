#!/usr/bin/env python3
# Writes mini-resnet.onnxtxt (python3 gen-mini-resnet.py > mini-resnet.onnxtxt):
# a ResNet-18 in miniature (stem, max pool, two basic blocks, the second
# downsampling through a 1x1 convolution, global average pool, linear head),
# with weights from a fixed seed.
from onnxtxt import ModelText

m = ModelText(18)
tensor, bn, nodes = m.tensor, m.bn, m.nodes


def conv(name, x, cin, cout, k, stride):
    tensor(f"{name}_w", [cout, cin, k, k])
    pad = k // 2
    nodes.append(f'  node {{ name: "{name}" op_type: "Conv" input: ["{x}", '
                 f'"{name}_w"] output: "{name}"\n'
                 f'    attribute {{ name: "strides" type: INTS ints: '
                 f'[{stride}, {stride}] }}\n'
                 f'    attribute {{ name: "pads" type: INTS ints: '
                 f'[{pad}, {pad}, {pad}, {pad}] }} }}')
    return name


def relu(name, x):
    nodes.append(f'  node {{ name: "{name}" op_type: "Relu" input: "{x}" '
                 f'output: "{name}" }}')
    return name


def add(name, a, b):
    nodes.append(f'  node {{ name: "{name}" op_type: "Add" input: ["{a}", '
                 f'"{b}"] output: "{name}" }}')
    return name


def block(name, x, cin, cout, stride):
    y = relu(f"{name}_r1", bn(f"{name}_bn1",
                              conv(f"{name}_c1", x, cin, cout, 3, stride),
                              cout))
    y = bn(f"{name}_bn2", conv(f"{name}_c2", y, cout, cout, 3, 1), cout)
    if stride != 1 or cin != cout:
        x = bn(f"{name}_bnd", conv(f"{name}_cd", x, cin, cout, 1, stride),
               cout)
    return relu(f"{name}_out", add(f"{name}_add", y, x))


x = relu("stem_r", bn("stem_bn", conv("stem", "image", 3, 8, 3, 1), 8))
nodes.append('  node { name: "pool" op_type: "MaxPool" input: "stem_r" '
             'output: "pool"\n'
             '    attribute { name: "kernel_shape" type: INTS ints: [3, 3] }\n'
             '    attribute { name: "strides" type: INTS ints: [2, 2] }\n'
             '    attribute { name: "pads" type: INTS ints: [1, 1, 1, 1] } }')
x = block("l1", "pool", 8, 8, 1)
x = block("l2", x, 8, 16, 2)
nodes.append(f'  node {{ name: "gap" op_type: "GlobalAveragePool" input: '
             f'"{x}" output: "gap" }}')
nodes.append('  node { name: "flat" op_type: "Flatten" input: "gap" '
             'output: "flat" }')
tensor("fc", [10, 16])
tensor("fcb", [10])
nodes.append('  node { name: "head" op_type: "Gemm" input: ["flat", "fc", '
             '"fcb"] output: "logits" attribute { name: "transB" type: INT '
             'i: 1 } }')
m.print("A ResNet-18 in miniature (test/Import/Inputs/gen-mini-resnet.py "
        "writes it):\nstem, max pool, two basic blocks (the second "
        "downsampling through a 1x1\nconvolution), global average pool and "
        "a linear head.", "mini_resnet", (3, 16, 16))
