"""Embedding lookup: rows of a float16 table picked by int64 token ids (DML_GATHER, axis 0).

The one-shot call compiles the gather once (kernels are memoized per shape and type) and reuses it
for every batch. Checked bit for bit against numpy's fancy indexing.
"""
import numpy as np

import dmlc

rng = np.random.default_rng(0)
vocab, dim = 5000, 64
table = rng.standard_normal((vocab, dim)).astype(np.float16)

for batch in range(3):
    tokens = rng.integers(0, vocab, size=(1, 32), dtype=np.int64)  # one sequence of 32 tokens
    # Gather's tensors share one rank: indices {1, 32} with IndexDimensions 1 -> output {32, 64}.
    rows = dmlc.gather(table, tokens, axis=0, index_dimensions=1)
    expected = table[tokens[0]]
    assert rows.shape == (32, dim) and rows.dtype == np.float16
    assert np.array_equal(rows.view(np.uint16), expected.view(np.uint16)), f"batch {batch}"

print(f"embedding_lookup: 3 batches of 32 tokens from a {vocab}x{dim} float16 table: exact")
