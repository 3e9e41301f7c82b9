"""A decoder's step loop on a float16 key/value cache that stays on the device: each step
appends one token's [heads, head_dim] row in place (DML_SCATTER_ND, out= the cache) and reads
the growing window cache[:t] (a copy of a view whose length changes every step).

Every new t is a new shape. dmlc compiles the first window specialized; when the same
signature comes back with another length it compiles one generic kernel, whose sizes arrive
as push constants, and every later step reuses it (docs/generic-kernels.md): 40 steps, two
compiles for the window. Exit 1 if any window differs from numpy's in any bit, or if an
operator compiled more than twice.
"""
import sys

import numpy as np

import dmlc

rng = np.random.default_rng(11)
max_tokens, heads, head_dim, steps = 64, 4, 32, 40
reference = np.zeros((max_tokens, heads, head_dim), np.float16)
cache = dmlc.to_device(reference)
dmlc.clear_cache()

for t in range(1, steps + 1):
    row = rng.standard_normal((1, heads, head_dim)).astype(np.float16)
    dmlc.scatter_nd(cache, np.array([[t - 1]], np.int64), row, out=cache)
    reference[t - 1] = row[0]
    window = dmlc.copy(cache[:t])                      # [t, heads, head_dim], t grows
    if not np.array_equal(window.numpy().view(np.uint16), reference[:t].view(np.uint16)):
        print(f"kv_window_decode: step {t}: the window differs from numpy's", file=sys.stderr)
        sys.exit(1)

compiles = dmlc.cache_info()["compiles"]
per_operator: dict[str, int] = {}
for name, n in compiles.items():
    per_operator[name.removesuffix(" generic")] = per_operator.get(
        name.removesuffix(" generic"), 0) + n
if max(per_operator.values()) > 2:
    print(f"kv_window_decode: compiled more than twice for one operator: {compiles}",
          file=sys.stderr)
    sys.exit(1)
print(f"kv_window_decode: {steps} steps of a float16 [{max_tokens},{heads},{head_dim}] cache, "
      f"each window exact; compiles: {compiles}")
