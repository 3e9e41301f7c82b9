"""A key/value cache updated in place with DML_SCATTER_ND: each step writes the new tokens'
[heads, head_dim] rows at their positions, on a device tensor that never leaves the device.

cache: [max_tokens, heads, head_dim] float16; positions: [new, 1] int64 (one-coordinate index
tuples); keys: [new, heads, head_dim]. Unlike ScatterElements (kv_cache_scatter.py), one index
per row, not per element. out= the cache updates it in place: only the new rows are written.
A re-written slot keeps the later row (the last update in row-major order wins). Exit 1 if the
cache differs from numpy's in any bit.
"""
import sys

import numpy as np

import dmlc

rng = np.random.default_rng(7)
max_tokens, heads, head_dim = 128, 8, 32
reference = np.zeros((max_tokens, heads, head_dim), np.float16)
cache = dmlc.to_device(reference)

position = 0
for step, new in enumerate([7, 1, 1, 4, 1]):
    keys = rng.standard_normal((new, heads, head_dim)).astype(np.float16)
    slots = np.arange(position, position + new, dtype=np.int64)
    if step == 3:
        slots[-1] = slots[0]   # one slot written twice in a step: the later row wins
    if step == 4:
        slots[0] = -1          # negative: counts from the end (the last slot)
    dmlc.scatter_nd(cache, slots[:, None], keys, out=cache)
    for s, row in zip(slots, keys):
        reference[s] = row
    position += new

got = cache.numpy()
if not np.array_equal(got.view(np.uint16), reference.view(np.uint16)):
    print("kv_cache_scatter_nd: the cache differs from numpy's", file=sys.stderr)
    sys.exit(1)
print(f"kv_cache_scatter_nd: 5 steps, {position} token rows of {heads}x{head_dim} float16 "
      "updated in place: exact")
