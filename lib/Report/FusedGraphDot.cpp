//===- FusedGraphDot.cpp - The fused graph as a Graphviz picture ----------===//
//
// Ops are nodes, each kernel (fuse.group) a cluster coloured by what
// bounds it in the cost model (compute, memory, communication), the
// function's arguments and results ellipses. An edge into a kernel from
// outside it goes through memory and is labelled with the bytes it moves;
// edges inside a kernel stay in registers and carry no label. Reshapes
// and constants outside kernels are free and drawn dashed.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Report/Report.h"

#include "Format.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Dialect/Fuse/IR/FuseShapes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {

namespace {

/// Fill and border colours of a kernel cluster by its bound.
std::pair<const char *, const char *> clusterColours(BoundKind bound) {
  switch (bound) {
  case BoundKind::Compute:
    return {"#fde3c8", "#d9822b"};
  case BoundKind::Communication:
    return {"#d5efd9", "#3e9651"};
  case BoundKind::Memory:
    break;
  }
  return {"#dbe8f6", "#3f72af"};
}

std::string typeLabel(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return "";
  std::string text;
  for (int64_t size : tensor.getShape())
    text += std::to_string(size) + "x";
  llvm::raw_string_ostream os(text);
  tensor.getElementType().print(os);
  return text;
}

/// Escapes `text` for a double-quoted DOT string.
std::string quoted(llvm::StringRef text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

class GraphWriter {
public:
  GraphWriter(func::FuncOp func, const GraphAnalysis &after,
              const FusionRefusals &refusals, llvm::raw_ostream &os)
      : func(func), after(after), refusals(refusals), os(os) {}

  void write();

private:
  /// The node that produces `value` (outside kernels, group results are
  /// their yielded values' producers).
  std::string producerOf(Value value);
  /// The op computing `value` as producerOf resolves it (null for an
  /// argument of the function).
  Operation *producerOpOf(Value value);
  std::string nodeFor(Operation *op);
  void edge(Value value, Operation *user, bool throughMemory);

  func::FuncOp func;
  const GraphAnalysis &after;
  const FusionRefusals &refusals;
  llvm::raw_ostream &os;
  llvm::DenseMap<Operation *, std::string> names;
  /// A group's block arguments stand for its operands.
  llvm::DenseMap<Value, Value> outside;
};

std::string GraphWriter::nodeFor(Operation *op) {
  auto [it, inserted] = names.try_emplace(op, "");
  if (inserted)
    it->second = "op" + std::to_string(names.size() - 1);
  return it->second;
}

std::string GraphWriter::producerOf(Value value) {
  if (auto outer = outside.find(value); outer != outside.end())
    return producerOf(outer->second);
  if (auto argument = dyn_cast<BlockArgument>(value))
    return "arg" + std::to_string(argument.getArgNumber());
  Operation *def = value.getDefiningOp();
  if (auto group = dyn_cast<GroupOp>(def)) {
    auto yield = cast<YieldOp>(group.getBody().front().getTerminator());
    return producerOf(
        yield.getOperand(cast<OpResult>(value).getResultNumber()));
  }
  return nodeFor(def);
}

Operation *GraphWriter::producerOpOf(Value value) {
  if (auto outer = outside.find(value); outer != outside.end())
    return producerOpOf(outer->second);
  Operation *def = value.getDefiningOp();
  if (auto group = dyn_cast_or_null<GroupOp>(def)) {
    auto yield = cast<YieldOp>(group.getBody().front().getTerminator());
    return producerOpOf(
        yield.getOperand(cast<OpResult>(value).getResultNumber()));
  }
  return def;
}

void GraphWriter::edge(Value value, Operation *user, bool throughMemory) {
  os << "  " << producerOf(value) << " -> " << nodeFor(user);
  if (throughMemory) {
    std::string bytes = report::siBytes(getByteSize(value.getType()));
    Operation *producer = producerOpOf(value);
    auto refused =
        producer ? refusals.find(producer->getLoc()) : refusals.end();
    if (refused != refusals.end())
      os << " [style=dashed, color=\"#c0392b\", fontcolor=\"#c0392b\", "
         << "label=" << quoted(bytes + "\nnot fused")
         << ", tooltip=" << quoted(refused->second) << "]";
    else
      os << " [label=" << quoted(bytes) << "]";
  }
  os << ";\n";
}

void GraphWriter::write() {
  os << "digraph " << quoted(func.getSymName()) << " {\n"
     << "  rankdir=TB;\n"
     << "  node [shape=box, style=\"rounded,filled\", fillcolor=white, "
        "fontname=\"Helvetica\", fontsize=10];\n"
     << "  edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\"];\n";
  for (BlockArgument argument : func.getArguments())
    os << "  arg" << argument.getArgNumber()
       << " [shape=ellipse, fillcolor=\"#eeeeee\", label="
       << quoted("%arg" + std::to_string(argument.getArgNumber()) + "\n" +
                 typeLabel(argument.getType()))
       << "];\n";
  Block &body = func.getBody().front();
  size_t kernel = 0;
  for (Operation &op : body.without_terminator()) {
    auto group = dyn_cast<GroupOp>(&op);
    if (!group) {
      // Free outside a kernel: a reshape relabels, a constant is data.
      os << "  " << nodeFor(&op) << " [style=\"rounded,dashed\", label="
         << quoted(op.getName().stripDialect().str() + "\n" +
                   typeLabel(op.getResult(0).getType()))
         << "];\n";
      for (Value operand : op.getOperands())
        edge(operand, &op, /*throughMemory=*/false);
      continue;
    }
    Block &inner = group.getBody().front();
    for (auto [argument, operand] :
         llvm::zip(inner.getArguments(), group.getOperands()))
      outside[argument] = operand;
    const std::string name =
        func.getSymName().str() + "_k" + std::to_string(kernel);
    auto found = llvm::find_if(
        after.kernels, [&](const KernelAnalysis &k) { return k.name == name; });
    const KernelAnalysis *analysed =
        found == after.kernels.end() ? nullptr : &*found;
    const BoundKind bound =
        analysed ? analysed->prediction.bound : BoundKind::Memory;
    auto [fill, border] = clusterColours(bound);
    std::string title = name;
    if (analysed)
      title += llvm::formatv(" ({0}-bound, {1:f1} us)", boundName(bound),
                             analysed->prediction.seconds() * 1e6)
                   .str();
    os << "  subgraph cluster_k" << kernel << " {\n"
       << "    label=" << quoted(title) << "; style=\"rounded,filled\"; "
       << "fillcolor=" << quoted(fill) << "; color=" << quoted(border)
       << "; fontname=\"Helvetica\"; fontsize=11;\n";
    for (Operation &member : inner.without_terminator())
      os << "    " << nodeFor(&member) << " [label="
         << quoted(member.getName().stripDialect().str() + "\n" +
                   typeLabel(member.getResult(0).getType()))
         << "];\n";
    os << "  }\n";
    for (Operation &member : inner.without_terminator())
      for (Value operand : member.getOperands())
        edge(operand, &member,
             /*throughMemory=*/isa<BlockArgument>(operand) &&
                 cast<BlockArgument>(operand).getOwner() == &inner);
    ++kernel;
  }
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
    os << "  result" << index << " [shape=ellipse, fillcolor=\"#eeeeee\", "
       << "label="
       << quoted("result #" + std::to_string(index) + "\n" +
                 typeLabel(value.getType()))
       << "];\n";
    os << "  " << producerOf(value) << " -> result" << index
       << " [label=" << quoted(report::siBytes(getByteSize(value.getType())))
       << "];\n";
  }
  os << "}\n";
}

} // namespace

void writeFusedGraphDot(func::FuncOp func, const GraphAnalysis &after,
                        const FusionRefusals &refusals, llvm::raw_ostream &os) {
  GraphWriter(func, after, refusals, os).write();
}

} // namespace opfuse
