"""An ONNX graph as PyTorch's exporters write `x[torch.arange(B), pos]` and `F.one_hot`: integer
arithmetic on indices (Mul, Add, Equal, Cast) feeding a Gather. dmlc fuses the arithmetic into
the kernel that reads it: one kernel per output, no index tensor in between.

Needs the `onnx` package (pip install 'dmlc[onnx]').
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

import dmlc.onnx
from dmlc.compiled import tracing

batch, seq, width, classes = 3, 7, 4, 6
graph = helper.make_graph(
    [  # rows[b] = x.reshape(-1, width)[b * seq + pos[b]]   (the TorchScript exporter's form)
        helper.make_node("Range", ["zero", "batch", "one"], ["b"]),
        helper.make_node("Mul", ["b", "seq"], ["base"]),
        helper.make_node("Add", ["pos", "base"], ["flat"]),
        helper.make_node("Reshape", ["x", "rows_shape"], ["x2"]),
        helper.make_node("Gather", ["x2", "flat"], ["rows"], axis=0),
        # onehot[b, c] = float(pos[b] == c)                 (the dynamo exporter's form)
        helper.make_node("Unsqueeze", ["pos", "last"], ["p1"]),
        helper.make_node("Equal", ["p1", "classes"], ["eq"]),
        helper.make_node("Cast", ["eq"], ["onehot"], to=TensorProto.FLOAT)],
    "pick", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, seq, width]),
             helper.make_tensor_value_info("pos", TensorProto.INT64, [batch])],
    [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("rows", "onehot")],
    [numpy_helper.from_array(np.asarray(v, np.int64), n) for n, v in [
        ("zero", 0), ("one", 1), ("batch", batch), ("seq", seq), ("last", [-1]),
        ("rows_shape", [-1, width]), ("classes", np.arange(classes))]])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])

x = np.random.default_rng(0).standard_normal((batch, seq, width)).astype(np.float32)
pos = np.array([6, 0, 3])
with dmlc.onnx.load_program(model) as program, tracing() as kernels:
    out = program.run({"x": x, "pos": pos})

assert np.array_equal(out["rows"], x[np.arange(batch), pos])
assert np.array_equal(out["onehot"], (pos[:, None] == np.arange(classes)).astype(np.float32))
for k in kernels:  # one kernel each; each reads x or pos, and no index tensor
    reads = [b.name for b in k.kernel.program.buffers if b.role == "input"]
    print(f"  {k.kernel.descriptor.operator}: reads {reads}")
assert len(kernels) == 2
print("onnx_index_arithmetic: x[arange(B), pos] and one_hot(pos) exact, one kernel each")
