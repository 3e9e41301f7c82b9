"""A key/value cache updated in place of new tokens' rows (DML_SCATTER, axis 0).

cache: [max_tokens, heads * head_dim]; each step writes the new tokens' keys at their positions.
ScatterElements takes one index per updated element, so the positions are repeated across the
row. Positions may repeat (a re-written slot): the later row wins, as dmlc documents.
"""
import numpy as np

import dmlc

rng = np.random.default_rng(2)
max_tokens, width = 64, 8 * 16
cache = np.zeros((max_tokens, width), np.float32)
reference = cache.copy()

position = 0
for step, new in enumerate([5, 1, 1, 3]):
    keys = rng.standard_normal((new, width)).astype(np.float32)
    slots = np.arange(position, position + new, dtype=np.int32)
    if step == 3:
        slots[-1] = slots[0]  # write one slot twice: the last update in row-major order wins
    indices = np.repeat(slots[:, None], width, axis=1)      # [new, width]
    cache = dmlc.scatter(cache, indices, keys, axis=0)
    for s, row in zip(slots, keys):
        reference[s] = row
    position += new

assert np.array_equal(cache, reference)
print(f"kv_cache_scatter: 4 steps, {position} token slots of {width} floats: exact")
