"""The backward pass of a bidirectional RNN reads each sequence reversed, but only its first
`length` steps: padding after them stays in place (DML_REVERSE_SUBSEQUENCES, ONNX
ReverseSequence). Reversing twice gives the batch back. Checked against numpy.
"""
import numpy as np

import dmlc

rng = np.random.default_rng(2)
steps, batch, hidden = 20, 6, 32
x = rng.standard_normal((steps, batch, hidden)).astype(np.float16)  # time-major
lengths = np.array([20, 7, 1, 0, 13, 20], np.int64)  # per sequence

seq = dmlc.to_device(x)
lens = dmlc.to_device(np.broadcast_to(lengths.reshape(1, batch, 1), (1, batch, hidden)).copy())
backward = dmlc.reverse_subsequences(seq, lens, axis=0)

expected = x.copy()
for b, n in enumerate(lengths):
    expected[:n, b] = x[:n, b][::-1]
assert np.array_equal(backward.numpy().view(np.uint16), expected.view(np.uint16))
again = dmlc.reverse_subsequences(backward, lens, axis=0)
assert np.array_equal(again.numpy().view(np.uint16), x.view(np.uint16))
print(f"bidirectional_rnn_reverse: {batch} sequences of up to {steps} steps: exact, twice")
