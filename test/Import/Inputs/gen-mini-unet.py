#!/usr/bin/env python3
# Writes mini-unet.onnxtxt (python3 gen-mini-unet.py > mini-unet.onnxtxt):
# a U-Net in miniature, as segmentation and diffusion decoders are built:
# two encoder stages of 3x3 convolutions with batch norm and ReLU, max
# pooling (ceil_mode), a bottleneck with a grouped 3x3 convolution of 16
# channels a group, and two decoder stages that upsample by a 2x2 stride-2
# ConvTranspose, concatenate the encoder's skip connection and convolve;
# a 1x1 head with a sigmoid, with weights from a fixed seed.
from onnxtxt import ModelText

m = ModelText(3)
tensor, bn, node, ints = m.tensor, m.bn, m.node, m.ints


def conv(name, x, cin, cout, k, groups=1):
    tensor(f"{name}_w", [cout, cin // groups, k, k])
    pad = k // 2
    return node(name, "Conv", [x, f"{name}_w"],
                ints("pads", [pad] * 4) +
                f' attribute {{ name: "group" type: INT i: {groups} }}')


def conv_bn_relu(name, x, cin, cout, groups=1):
    y = bn(f"{name}_bn", conv(name, x, cin, cout, 3, groups), cout)
    return node(f"{name}_relu", "Relu", [y])


def up(name, x, cin, cout):
    """2x upsampling: a 2x2 stride-2 transposed convolution with a bias."""
    tensor(f"{name}_w", [cin, cout, 2, 2])
    tensor(f"{name}_b", [cout])
    return node(name, "ConvTranspose", [x, f"{name}_w", f"{name}_b"],
                ints("strides", [2, 2]) + ints("kernel_shape", [2, 2]))


def pool(name, x):
    return node(name, "MaxPool", [x],
                ints("kernel_shape", [2, 2]) + ints("strides", [2, 2]) +
                ' attribute { name: "ceil_mode" type: INT i: 1 }')


skip1 = conv_bn_relu("e1b", conv_bn_relu("e1a", "image", 3, 8), 8, 8)
skip2 = conv_bn_relu("e2b", conv_bn_relu("e2a", pool("p1", skip1), 8, 16),
                     16, 16)
x = conv_bn_relu("mid_a", pool("p2", skip2), 16, 32)
x = conv_bn_relu("mid_g", x, 32, 32, groups=2)
x = node("cat2", "Concat", [up("u2", x, 32, 16), skip2],
         ' attribute { name: "axis" type: INT i: 1 }')
x = conv_bn_relu("d2", x, 32, 16)
x = node("cat1", "Concat", [up("u1", x, 16, 8), skip1],
         ' attribute { name: "axis" type: INT i: 1 }')
x = conv_bn_relu("d1", x, 16, 8)
tensor("head_b", [2])
tensor("head_w", [2, 8, 1, 1])
node("head", "Conv", [x, "head_w", "head_b"])
node("mask", "Sigmoid", ["head"])
m.print("A U-Net in miniature (test/Import/Inputs/gen-mini-unet.py writes "
        "it): two encoder\nstages of 3x3 convolutions, batch norm and ReLU "
        "with ceil_mode max pooling,\na bottleneck with a grouped 3x3 "
        "convolution (16 channels a group), two\ndecoder stages of a 2x2 "
        "stride-2 ConvTranspose, the skip connection\nconcatenated and a "
        "3x3 convolution, a 1x1 head and a sigmoid.", "mini_unet",
        (3, 16, 16), output="mask")
