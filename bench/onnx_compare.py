#!/usr/bin/env python3
"""Exported models end to end: PyTorch -> ONNX -> opt-fuse, against eager and torch.compile.

Runs on the GPU machine, one script, one GPU. Builds ResNet-18
(torchvision; or, with --models, MobileNetV2, MobileNetV3-Small,
ConvNeXt-Tiny, ResNeXt-50 32x4d or RegNetY-400MF, or a U-Net and DCGAN's
generator written here, whose upsampling is ConvTranspose), a 2-layer GPT-2 and a 2-layer BERT (transformers, randomly
initialised from their configs: nothing is downloaded), exports each with
torch.onnx.export, and for each model:
  - import + compile time: `opt-fuse MODEL.onnx --emit=summary`, timed;
  - outputs: `opt-fuse MODEL.onnx --bench --inputs NAME=FILE.npy
    --save-outputs DIR` on the inputs PyTorch ran, compared with PyTorch's
    outputs (relative L2 and max abs, in f64);
  - latency P50/P99 (CUDA events after warm-up; opfuse's --bench times its
    launch plan the same way) and peak device memory beyond inputs and
    weights (PyTorch: max_memory_allocated during one call; opfuse: its
    arena plus its outputs), for eager, torch.compile and opfuse.
Both sides compute f32 convolutions and matmuls in f32 (PyTorch's TF32 is
turned off). A model opt-fuse cannot compile is reported with its error (exit 4 lists
every op without an importer or emitter) and the script goes on.

    python3 bench/onnx_compare.py [--opt-fuse build/bin/opt-fuse]
        [--models resnet18 gpt2 bert mobilenet_v2 mobilenet_v3_small
                  convnext_tiny resnext50_32x4d regnet_y_400mf unet dcgan]
        [--small] [--keep DIR] [--iters 50]
        [--dtype f32|bf16]

--dtype bf16 casts each model and its float inputs to bf16 before the
export (the same on both sides); outputs are then compared with the f32
model's, for PyTorch's bf16 run and opfuse's alike, against the bf16
relative-L2 tolerance of docs/numerics.md (1e-2).

--small builds GPT-2 and BERT with narrow layers (the same ONNX operators,
files of a few hundred KB) and feeds ResNet-18 a 64x64 image, for trying
the importer; --keep
copies the exported .onnx files to DIR.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

from compare import ROOT, time_cuda
from memory_compare import torch_peak_extra

SEQUENCE = 128
# torchvision's image classifiers the script knows: ResNet-18, and the
# depthwise-convolution networks (MobileNetV2's ReLU6, MobileNetV3's
# HardSwish and HardSigmoid squeeze-excitation, ConvNeXt's 7x7 depthwise
# and channel layer norm), and the grouped ones (ResNeXt's 32 groups,
# RegNetY's groups of 8 channels with squeeze-excitation).
VISION = ["resnet18", "mobilenet_v2", "mobilenet_v3_small", "convnext_tiny",
          "resnext50_32x4d", "regnet_y_400mf"]


def unet(small):
    """A U-Net of four levels (32 to 256 channels; 8 to 64 with --small):
    two 3x3 convolutions with batch norm and ReLU a level, 2x2 max pools
    down, 2x2 stride-2 ConvTransposes up, skip connections concatenated,
    a 1x1 head. Written down on 2026-12-05 before opfuse's phase-split
    ConvTranspose was first timed."""
    nn = torch.nn

    def block(cin, cout):
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout),
            nn.ReLU(), nn.Conv2d(cout, cout, 3, padding=1),
            nn.BatchNorm2d(cout), nn.ReLU())

    class UNet(nn.Module):
        def __init__(self, widths):
            super().__init__()
            self.down = nn.ModuleList()
            cin = 3
            for w in widths:
                self.down.append(block(cin, w))
                cin = w
            self.up = nn.ModuleList()
            self.merge = nn.ModuleList()
            for w in reversed(widths[:-1]):
                self.up.append(nn.ConvTranspose2d(cin, w, 2, stride=2))
                self.merge.append(block(2 * w, w))
                cin = w
            self.head = nn.Conv2d(cin, 2, 1)

        def forward(self, x):
            skips = []
            for i, level in enumerate(self.down):
                x = level(x)
                if i + 1 < len(self.down):
                    skips.append(x)
                    x = torch.nn.functional.max_pool2d(x, 2)
            for up, merge in zip(self.up, self.merge):
                x = merge(torch.cat([up(x), skips.pop()], dim=1))
            return self.head(x)
    return UNet([8, 16, 32, 64] if small else [32, 64, 128, 256]).eval()


def dcgan():
    """DCGAN's generator (100-d noise to 64x64 RGB): 4x4 ConvTransposes,
    stride 2 and pad 1 after the first, batch norm and ReLU, tanh.
    Written down on 2026-12-05 before opfuse's phase-split ConvTranspose
    was first timed."""
    nn = torch.nn
    layers, cin = [], 100
    for i, cout in enumerate([512, 256, 128, 64]):
        layers += [nn.ConvTranspose2d(cin, cout, 4, 1 if i == 0 else 2,
                                      0 if i == 0 else 1, bias=False),
                   nn.BatchNorm2d(cout), nn.ReLU()]
        cin = cout
    layers += [nn.ConvTranspose2d(cin, 3, 4, 2, 1, bias=False), nn.Tanh()]
    return nn.Sequential(*layers).eval()


def build(name, small):
    """(module, example inputs as a tuple, input names, output names)."""
    torch.manual_seed(0)
    if name in VISION:
        import torchvision
        # torchvision fixes these widths: --small only shrinks the image.
        model = getattr(torchvision.models, name)(weights=None)
        x = torch.randn(1, 3, 64 if small else 224, 64 if small else 224)
        return model.eval(), (x,), ["input"], ["logits"]
    if name == "unet":
        return unet(small), (torch.randn(1, 3, 64 if small else 256,
                                         64 if small else 256),), \
            ["image"], ["mask"]
    if name == "dcgan":
        return dcgan(), (torch.randn(8, 100, 1, 1),), ["z"], ["image"]
    if name == "gpt2":
        from transformers import GPT2Config, GPT2LMHeadModel
        config = GPT2Config(n_layer=2, use_cache=False,
                            **({"n_embd": 64, "n_head": 4, "vocab_size": 512,
                                "n_positions": SEQUENCE} if small else {}))
        config._attn_implementation = "eager"
        model = GPT2LMHeadModel(config).eval()
        ids = torch.randint(0, config.vocab_size, (1, SEQUENCE))
        return model, (ids,), ["input_ids"], ["logits"]
    if name == "bert":
        from transformers import BertConfig, BertModel
        config = BertConfig(num_hidden_layers=2,
                            **({"hidden_size": 64, "num_attention_heads": 4,
                                "intermediate_size": 256, "vocab_size": 512}
                               if small else {}))
        config._attn_implementation = "eager"
        model = BertModel(config, add_pooling_layer=False).eval()
        ids = torch.randint(0, config.vocab_size, (1, SEQUENCE))
        return model, (ids,), ["input_ids"], ["last_hidden_state"]
    raise ValueError(name)


def first_tensor(out):
    if isinstance(out, torch.Tensor):
        return out
    if hasattr(out, "logits"):
        return out.logits
    if hasattr(out, "last_hidden_state"):
        return out.last_hidden_state
    return out[0]


def export(model, inputs, names, outputs, path):
    class Wrapped(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, *args):
            return first_tensor(self.inner(*args))

    wrapped = Wrapped(model).eval()
    with torch.no_grad():
        try:
            torch.onnx.export(wrapped, inputs, path, input_names=names,
                              output_names=outputs, opset_version=17, dynamo=False)
            return "torchscript"
        except Exception as error:  # the TorchScript exporter refuses some models
            print(f"  TorchScript export failed ({type(error).__name__}: {error}); trying dynamo",
                  file=sys.stderr)
            torch.onnx.export(wrapped, inputs, path, input_names=names,
                              output_names=outputs, opset_version=18, dynamo=True,
                              external_data=False)
            return "dynamo"


def onnx_ops(path):
    import onnx
    model = onnx.load(path, load_external_data=False)
    ops = {}
    for node in model.graph.node:
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
    return ops


def run(command):
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    return done, time.perf_counter() - start


def compare_outputs(reference, got):
    ref = reference.detach().double().cpu().numpy()
    out = got.astype(np.float64)
    if ref.shape != out.shape:
        return f"shape {out.shape} != {ref.shape}", None
    diff = np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-30)
    return None, (float(diff), float(np.max(np.abs(out - ref))))


def measure(name, args, workdir, rows):
    model, inputs, names, outputs = build(name, args.small)
    f32_reference = None
    if args.dtype == "bf16":
        import copy
        cuda_f32 = copy.deepcopy(model).cuda()
        with torch.no_grad():
            f32_reference = first_tensor(
                cuda_f32(*(t.cuda() for t in inputs))).float()
        del cuda_f32
        model = model.to(torch.bfloat16)
        inputs = tuple(t.to(torch.bfloat16) if t.is_floating_point() else t
                       for t in inputs)
    path = os.path.join(workdir, f"{name}.onnx")
    how = export(model, inputs, names, outputs, path)
    size = os.path.getsize(path)
    ops = onnx_ops(path)
    print(f"{name}: exported by {how}, {size / 2**20:.1f} MiB, {sum(ops.values())} nodes: "
          + ", ".join(f"{k} {v}" for k, v in sorted(ops.items())), flush=True)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        shutil.copy(path, args.keep)

    done, seconds = run([args.opt_fuse, path, "--emit=summary"])
    print(f"  opt-fuse --emit=summary: exit {done.returncode} in {seconds:.2f} s", flush=True)
    if done.returncode != 0:
        print("  " + done.stderr.strip().replace("\n", "\n  "), flush=True)
        rows.append((name, "opfuse", None, None, None, f"exit {done.returncode}"))
        return
    print("  " + done.stdout.strip().splitlines()[1], flush=True)

    # The same inputs on both sides.
    feeds = []
    for input_name, tensor in zip(names, inputs):
        npy = os.path.join(workdir, f"{name}.{input_name}.npy")
        np.save(npy, tensor.float().numpy() if tensor.dtype == torch.bfloat16
                else tensor.numpy())
        feeds += ["--inputs", f"{input_name}={npy}"]
    saved = os.path.join(workdir, f"{name}.out")
    done, _ = run([args.opt_fuse, path, "--bench", "--emit=report-json",
                   "--warmup", str(args.warmup), "--iters", str(args.iters),
                   "--save-outputs", saved, *feeds])
    if done.returncode != 0:
        print(f"  opt-fuse --bench: exit {done.returncode}\n  {done.stderr.strip()}", flush=True)
        rows.append((name, "opfuse", None, None, None, f"bench exit {done.returncode}"))
        return
    report = json.loads(done.stdout)

    cuda_model = model.cuda()
    cuda_inputs = tuple(t.cuda() for t in inputs)
    with torch.no_grad():
        reference = first_tensor(cuda_model(*cuda_inputs)).float()
    got = np.load(os.path.join(saved, f"{outputs[0]}.npy"))
    error, metrics = compare_outputs(reference, got)
    verdict = error or f"rel L2 {metrics[0]:.2e}, max abs {metrics[1]:.2e}"
    print(f"  outputs against PyTorch ({args.dtype}): {verdict}", flush=True)
    if f32_reference is not None:
        _, torch_bf16 = compare_outputs(f32_reference, reference.cpu().numpy())
        error, ours = compare_outputs(f32_reference, got)
        verdict = error or (
            f"vs f32 model: opfuse rel L2 {ours[0]:.2e}, PyTorch bf16 "
            f"{torch_bf16[0]:.2e} ({'within' if ours[0] <= 1e-2 else 'OVER'} 1e-2)")
        print(f"  {verdict}", flush=True)

    with torch.no_grad():
        eager = lambda *xs: first_tensor(cuda_model(*xs))
        torch._dynamo.reset()
        compiled = torch.compile(eager, dynamic=False)
        for label, call in (("eager", eager), ("torch.compile", compiled)):
            call(*cuda_inputs)
            p50, p99 = time_cuda(lambda: call(*cuda_inputs), args.warmup, args.iters)
            rows.append((name, label, p50, p99, torch_peak_extra(call, cuda_inputs), ""))
    memory = report["memory"]
    rows.append((name, "opfuse", report["measured"]["p50_us"], report["measured"]["p99_us"],
                 memory["arena_bytes"] + memory["output_bytes"], verdict))
    torch._dynamo.reset()


def main():
    # Like for like: opt-fuse runs f32 convolutions and matmuls as f32 FMAs
    # unless --allow-tf32, and PyTorch's cuDNN convolutions default to TF32,
    # which put ResNet-18 3.4e-4 (relative L2) from opt-fuse on the H200.
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opt-fuse", default=os.path.join(ROOT, "build/bin/opt-fuse"))
    parser.add_argument("--models", nargs="*", default=["resnet18", "gpt2", "bert"])
    parser.add_argument("--small", action="store_true",
                        help="narrow layers: the same operators, small files")
    parser.add_argument("--keep", help="copy the exported .onnx files here")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--dtype", choices=["f32", "bf16"], default="f32",
                        help="run the models in f32 or cast to bf16")
    args = parser.parse_args()

    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for name in args.models:
            try:
                measure(name, args, workdir, rows)
            except Exception as error:
                print(f"{name}: {type(error).__name__}: {error}", flush=True)
                rows.append((name, "-", None, None, None, f"{type(error).__name__}"))

    print("\n| model | system | P50 (us) | P99 (us) | peak extra memory (MiB) | outputs |")
    print("|---|---|---|---|---|---|")
    for name, label, p50, p99, peak, note in rows:
        fmt = lambda v: "-" if v is None else f"{v:.1f}"
        mib = "-" if peak is None else f"{peak / 2**20:.1f}"
        print(f"| {name} | {label} | {fmt(p50)} | {fmt(p99)} | {mib} | {note} |")


if __name__ == "__main__":
    main()
