"""Sliding-window patch extraction (im2col): 3x3 patches of a padded feature map, the input of a
convolution written as a matrix product. Two data-movement kernels: DML_PADDING1 (reflect, so
the border patches see mirrored pixels) and DML_GATHER of the padded map's flattened pixels by
precomputed patch indices. Checked against numpy's sliding_window_view.
"""
import numpy as np

import dmlc

rng = np.random.default_rng(1)
c, h, w, k = 8, 32, 32, 3
image = rng.standard_normal((c, h, w)).astype(np.float32)

padded = dmlc.pad(dmlc.to_device(image), [0, 1, 1], [0, 1, 1], mode="reflect")  # [8, 34, 34]
# Patch p = (y, x) and tap t = (dy, dx) read padded pixel (y + dy, x + dx): one index per pair.
ys, xs = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
dys, dxs = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
taps = (ys.reshape(-1, 1) + dys.reshape(1, -1)) * (w + 2) + (xs.reshape(-1, 1) + dxs.reshape(1, -1))
flat = padded.reshape(c, (h + 2) * (w + 2))  # a view: no copy
patches = dmlc.gather(flat, taps.reshape(1, h * w * k * k).astype(np.int32), axis=1,
                      index_dimensions=1)  # [8, h*w*9]
cols = patches.numpy().reshape(c, h * w, k * k)

windows = np.lib.stride_tricks.sliding_window_view(
    np.pad(image, ((0, 0), (1, 1), (1, 1)), mode="reflect"), (k, k), axis=(1, 2))
assert np.array_equal(cols, windows.reshape(c, h * w, k * k))
print(f"sliding_window_patches: {h * w} patches of {c}x{k}x{k} from a reflect-padded map: exact")
