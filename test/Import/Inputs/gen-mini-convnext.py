#!/usr/bin/env python3
# Writes mini-convnext.onnxtxt (python3 gen-mini-convnext.py >
# mini-convnext.onnxtxt): ConvNeXt's blocks in miniature, as torch.onnx
# exports torchvision's convnext_tiny: a 4x4 stride-4 patchify stem with a
# channels-last layer norm (Transpose, LayerNormalization, Transpose), then
# blocks of a 7x7 depthwise convolution, Transpose to NHWC,
# LayerNormalization, MatMul to 4x the channels, GELU as exported (Div by
# sqrt 2, Erf, Add 1, Mul, Mul 0.5), MatMul back, a layer scale (Mul),
# Transpose to NCHW and the residual Add; then global average pool, layer
# norm and a linear classifier. Weights from a fixed seed.
import math

from onnxtxt import ModelText

m = ModelText(7)
tensor, inits, nodes = m.tensor, m.inits, m.nodes
node, ints = m.node, m.ints


def conv(name, x, cin, cout, k, stride, pad, groups=1):
    tensor(f"{name}_w", [cout, cin // groups, k, k])
    tensor(f"{name}_b", [cout])
    return node(name, "Conv", [x, f"{name}_w", f"{name}_b"],
                ints("strides", [stride, stride]) +
                ints("pads", [pad] * 4) +
                f' attribute {{ name: "group" type: INT i: {groups} }}')


def layer_norm(name, x, c):
    tensor(f"{name}_g", [c], 0.5, 1.5)
    tensor(f"{name}_b", [c])
    return node(name, "LayerNormalization", [x, f"{name}_g", f"{name}_b"],
                ' attribute { name: "axis" type: INT i: -1 } '
                'attribute { name: "epsilon" type: FLOAT f: 1e-06 }')


def transpose(name, x, perm):
    return node(name, "Transpose", [x], ints("perm", perm))


def gelu(name, x):
    y = node(f"{name}_div", "Div", [x, "sqrt2"])
    y = node(f"{name}_erf", "Erf", [y])
    y = node(f"{name}_add", "Add", [y, "one"])
    y = node(f"{name}_mul", "Mul", [x, y])
    return node(name, "Mul", [y, "half"])


def block(name, x, c):
    y = conv(f"{name}_dw", x, c, c, 7, 1, 3, groups=c)
    y = transpose(f"{name}_nhwc", y, [0, 2, 3, 1])
    y = layer_norm(f"{name}_ln", y, c)
    tensor(f"{name}_w1", [c, 4 * c])
    tensor(f"{name}_b1", [4 * c])
    y = node(f"{name}_fc1", "MatMul", [y, f"{name}_w1"])
    y = node(f"{name}_fc1b", "Add", [y, f"{name}_b1"])
    y = gelu(f"{name}_gelu", y)
    tensor(f"{name}_w2", [4 * c, c])
    tensor(f"{name}_b2", [c])
    y = node(f"{name}_fc2", "MatMul", [y, f"{name}_w2"])
    y = node(f"{name}_fc2b", "Add", [y, f"{name}_b2"])
    tensor(f"{name}_gamma", [c], 0.1, 0.3)
    y = node(f"{name}_scale", "Mul", [y, f"{name}_gamma"])
    y = transpose(f"{name}_nchw", y, [0, 3, 1, 2])
    return node(f"{name}_res", "Add", [x, y])


inits.append(f'  initializer {{ name: "sqrt2" data_type: 1 float_data: '
             f'{math.sqrt(2):.7f} }}')
inits.append('  initializer { name: "one" data_type: 1 float_data: 1 }')
inits.append('  initializer { name: "half" data_type: 1 float_data: 0.5 }')
x = conv("stem", "image", 3, 8, 4, 4, 0)
x = transpose("stem_nhwc", x, [0, 2, 3, 1])
x = layer_norm("stem_ln", x, 8)
x = transpose("stem_nchw", x, [0, 3, 1, 2])
x = block("s1b1", x, 8)
x = block("s1b2", x, 8)
x = node("gap", "GlobalAveragePool", [x])
x = node("flat", "Flatten", [x])
x = layer_norm("head_ln", x, 8)
tensor("fc", [5, 8])
tensor("fcb", [5])
nodes.append('  node { name: "classifier" op_type: "Gemm" input: ["head_ln", '
             '"fc", "fcb"] output: "logits" attribute { name: "transB" '
             'type: INT i: 1 } }')
m.print("ConvNeXt's blocks in miniature as torch.onnx exports them "
        "(test/Import/Inputs/\ngen-mini-convnext.py writes it): a "
        "patchify stem, two blocks of 7x7\ndepthwise convolution, "
        "channels-last layer norm, MLP with an erf GELU, layer\nscale and "
        "residual add, then pooling, a layer norm and a classifier.",
        "mini_convnext", (3, 32, 32))
