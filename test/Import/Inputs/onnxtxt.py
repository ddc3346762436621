"""What the generators of this directory's models share (gen-mini-*.py):
weights drawn from a seeded stream as ONNX initializers in protobuf text,
batch norms, and the model's text around its nodes."""
import random


class ModelText:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.inits, self.nodes = [], []

    def tensor(self, name, dims, low=-0.5, high=0.5):
        """An f32 initializer of `dims`, uniform in [low, high)."""
        n = 1
        for d in dims:
            n *= d
        vals = ", ".join(f"{self.rng.uniform(low, high):.3f}"
                         for _ in range(n))
        self.inits.append(
            f'  initializer {{ name: "{name}" data_type: 1 dims: '
            f'[{", ".join(map(str, dims))}] float_data: [{vals}] }}')

    def bn(self, name, x, c):
        """A BatchNormalization of `c` channels (variances in [0.5, 1.5))."""
        for p in ("g", "b", "m"):
            self.tensor(f"{name}_{p}", [c])
        self.tensor(f"{name}_v", [c], 0.5, 1.5)
        self.nodes.append(
            f'  node {{ name: "{name}" op_type: "BatchNormalization" '
            f'input: ["{x}", "{name}_g", "{name}_b", "{name}_m", '
            f'"{name}_v"] output: "{name}" }}')
        return name

    def node(self, name, op, inputs, attrs=""):
        """A node of `op` on `inputs` whose output is named as it is;
        `attrs` is attribute text (ints())."""
        ins = ", ".join(f'"{i}"' for i in inputs)
        self.nodes.append(f'  node {{ name: "{name}" op_type: "{op}" input: '
                          f'[{ins}] output: "{name}"{attrs} }}')
        return name

    @staticmethod
    def ints(name, values):
        """An INTS attribute's text, for node()."""
        return (f' attribute {{ name: "{name}" type: INTS ints: '
                f'[{", ".join(map(str, values))}] }}')

    def print(self, comment, graph, image, output="logits"):
        """The model: `comment` lines, one NCHW f32 input named "image" of
        `image` (C, H, W) with a dynamic batch, and one output."""
        print("\n".join("# " + line for line in comment.split("\n")))
        c, h, w = image
        print('ir_version: 8\nopset_import { domain: "" version: 17 }\n'
              f'graph {{\n  name: "{graph}"\n  input {{ name: "image" type '
              '{ tensor_type { elem_type: 1 shape { dim { dim_param: "N" } '
              f'dim {{ dim_value: {c} }} dim {{ dim_value: {h} }} dim {{ '
              f'dim_value: {w} }} }} }} }} }}')
        print("\n".join(self.inits))
        print("\n".join(self.nodes))
        print(f'  output {{ name: "{output}" type {{ tensor_type {{ '
              'elem_type: 1 } } }\n}')
