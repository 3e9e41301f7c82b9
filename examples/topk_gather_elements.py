"""Top-k: the k largest scores per row and their values in a second tensor (DML_GATHER_ELEMENTS).

numpy finds the top-k positions; dmlc gathers the matching elements of `values` along axis 1, as a
model gathers the labels or logits that go with its top-k scores.
"""
import numpy as np

import dmlc

rng = np.random.default_rng(1)
rows, cols, k = 8, 100, 5
scores = rng.standard_normal((rows, cols)).astype(np.float32)
values = rng.integers(0, 1000, size=(rows, cols)).astype(np.int32)

top = np.argsort(-scores, axis=1)[:, :k].astype(np.int32)     # [rows, k] column indices
picked = dmlc.gather_elements(values, top, axis=1, check_indices=True)
assert np.array_equal(picked, np.take_along_axis(values, top, axis=1))

# The same for the scores themselves: sorted descending, per row.
best = dmlc.gather_elements(scores, top, axis=1)
assert np.all(np.diff(best, axis=1) <= 0)
print(f"topk_gather_elements: top-{k} of {rows} rows of {cols}: exact, scores descending")
