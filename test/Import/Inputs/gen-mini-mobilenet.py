#!/usr/bin/env python3
# Writes mini-mobilenet.onnxtxt (python3 gen-mini-mobilenet.py >
# mini-mobilenet.onnxtxt): MobileNetV2's inverted residual blocks in
# miniature (a 1x1 expansion, a 3x3 depthwise convolution, a 1x1
# projection, ReLU6 as Clip, a residual add; the last with MobileNetV3's
# squeeze-and-excitation: pool, 1x1 bottleneck, HardSigmoid gate), a
# MobileNetV3 head (1x1 convolution, HardSwish), global average pool and a
# linear classifier,
# with weights from a fixed seed.
from onnxtxt import ModelText

m = ModelText(2)
tensor, bn, inits, nodes = m.tensor, m.bn, m.inits, m.nodes


def conv(name, x, cin, cout, k, stride=1, groups=1):
    tensor(f"{name}_w", [cout, cin // groups, k, k])
    pad = k // 2
    nodes.append(f'  node {{ name: "{name}" op_type: "Conv" input: ["{x}", '
                 f'"{name}_w"] output: "{name}"\n'
                 f'    attribute {{ name: "strides" type: INTS ints: '
                 f'[{stride}, {stride}] }}\n'
                 f'    attribute {{ name: "group" type: INT i: {groups} }}\n'
                 f'    attribute {{ name: "pads" type: INTS ints: '
                 f'[{pad}, {pad}, {pad}, {pad}] }} }}')
    return name


def relu6(name, x):
    nodes.append(f'  node {{ name: "{name}" op_type: "Clip" input: ["{x}", '
                 f'"zero", "six"] output: "{name}" }}')
    return name


def squeeze_excite(name, x, c, squeezed):
    """MobileNetV3's squeeze-and-excitation: the channels' means through a
    1x1 bottleneck (ReLU) and a HardSigmoid gate, scaling the channels."""
    nodes.append(f'  node {{ name: "{name}_pool" op_type: "GlobalAveragePool" '
                 f'input: "{x}" output: "{name}_pool" }}')
    tensor(f"{name}_b1", [squeezed])
    tensor(f"{name}_b2", [c])
    y = conv(f"{name}_fc1", f"{name}_pool", c, squeezed, 1)
    nodes[-1] = nodes[-1].replace(f'input: ["{name}_pool", "{name}_fc1_w"]',
                                  f'input: ["{name}_pool", "{name}_fc1_w", '
                                  f'"{name}_b1"]')
    nodes.append(f'  node {{ name: "{name}_relu" op_type: "Relu" input: '
                 f'"{y}" output: "{name}_relu" }}')
    y = conv(f"{name}_fc2", f"{name}_relu", squeezed, c, 1)
    nodes[-1] = nodes[-1].replace(f'input: ["{name}_relu", "{name}_fc2_w"]',
                                  f'input: ["{name}_relu", "{name}_fc2_w", '
                                  f'"{name}_b2"]')
    nodes.append(f'  node {{ name: "{name}_gate" op_type: "HardSigmoid" '
                 f'input: "{y}" output: "{name}_gate" attribute {{ name: '
                 f'"alpha" type: FLOAT f: 0.16666667 }} }}')
    nodes.append(f'  node {{ name: "{name}" op_type: "Mul" input: ["{x}", '
                 f'"{name}_gate"] output: "{name}" }}')
    return name


def inverted_residual(name, x, cin, cout, expand, stride, se=False):
    hidden = cin * expand
    y = x
    if expand != 1:
        y = relu6(f"{name}_r1", bn(f"{name}_bn1",
                                   conv(f"{name}_expand", y, cin, hidden, 1),
                                   hidden))
    y = relu6(f"{name}_r2",
              bn(f"{name}_bn2",
                 conv(f"{name}_dw", y, hidden, hidden, 3, stride, hidden),
                 hidden))
    if se:
        y = squeeze_excite(f"{name}_se", y, hidden, hidden // 4)
    y = bn(f"{name}_bn3", conv(f"{name}_project", y, hidden, cout, 1), cout)
    if stride == 1 and cin == cout:
        nodes.append(f'  node {{ name: "{name}_add" op_type: "Add" input: '
                     f'["{y}", "{x}"] output: "{name}_add" }}')
        y = f"{name}_add"
    return y


inits.append('  initializer { name: "zero" data_type: 1 float_data: 0 }')
inits.append('  initializer { name: "six" data_type: 1 float_data: 6 }')
x = relu6("stem_r", bn("stem_bn", conv("stem", "image", 3, 8, 3, 2), 8))
x = inverted_residual("b1", x, 8, 8, 1, 1)
x = inverted_residual("b2", x, 8, 12, 2, 2)
x = inverted_residual("b3", x, 12, 12, 2, 1, se=True)
x = bn("head_bn", conv("head", x, 12, 16, 1), 16)
nodes.append(f'  node {{ name: "head_act" op_type: "HardSwish" input: "{x}" '
             f'output: "head_act" }}')
nodes.append('  node { name: "gap" op_type: "GlobalAveragePool" input: '
             '"head_act" output: "gap" }')
nodes.append('  node { name: "flat" op_type: "Flatten" input: "gap" '
             'output: "flat" }')
tensor("fc", [5, 16])
tensor("fcb", [5])
nodes.append('  node { name: "classifier" op_type: "Gemm" input: ["flat", '
             '"fc", "fcb"] output: "logits" attribute { name: "transB" '
             'type: INT i: 1 } }')
m.print("MobileNetV2's inverted residual blocks in miniature "
        "(test/Import/Inputs/\ngen-mini-mobilenet.py writes it): a stride-2 "
        "stem, three blocks of 1x1\nexpansion, 3x3 depthwise and 1x1 "
        "projection with ReLU6 (Clip) and residual\nadds (the last with "
        "squeeze-and-excitation), a HardSwish head, global\naverage pool "
        "and a linear classifier.", "mini_mobilenet", (3, 16, 16))
