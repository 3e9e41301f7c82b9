"""One-hot label encoding for a classifier's loss: int64 class ids to float16 rows
(DML_ONE_HOT, ONNX OneHot). An id outside [-classes, classes) (an "ignore" label) gives a row
of zeros; -1 is the last class. Checked against numpy.
"""
import numpy as np

import dmlc

rng = np.random.default_rng(3)
classes = 10
labels = rng.integers(0, classes, size=(4, 64)).astype(np.int64)
labels[0, :3] = [-1, 100, -100]  # the last class, then two ignored labels
hot = dmlc.one_hot(labels, np.array([0, 1], np.float16), classes)  # [4, 64, 10]

expected = np.zeros((4, 64, classes), np.float16)
for pos in np.ndindex(labels.shape):
    v = labels[pos] + (classes if labels[pos] < 0 else 0)
    if 0 <= v < classes:
        expected[pos + (v,)] = 1
assert np.array_equal(hot.view(np.uint16), expected.view(np.uint16))
assert hot[0, 0, -1] == 1 and not hot[0, 1].any() and not hot[0, 2].any()
print(f"one_hot_labels: {labels.size} labels, {classes} classes, ignored ids zeroed: exact")
