"""NHWC -> NCHW: a batch of images from a camera pipeline (channels last) made channels-first
for a convolution, on the device (DML_ELEMENT_WISE_IDENTITY with the transposed strides).

The numpy view `x.transpose(0, 3, 1, 2)` costs nothing; dmlc.copy reads it in place (its strides
fold into the kernel's addresses) and writes the packed result. Checked bit for bit.
"""
import numpy as np

import dmlc

rng = np.random.default_rng(0)
nhwc = rng.integers(0, 256, size=(4, 224, 224, 3), dtype=np.uint8)  # 4 RGB images
nchw = dmlc.copy(nhwc.transpose(0, 3, 1, 2))
assert nchw.shape == (4, 3, 224, 224) and nchw.flags.c_contiguous
assert np.array_equal(nchw, nhwc.transpose(0, 3, 1, 2))

# On the device: a device tensor's transpose is a view too; the result stays there.
frames = dmlc.to_device(nhwc.astype(np.float16) / np.float16(255))
planar = dmlc.copy(frames.transpose(0, 3, 1, 2))
expected = (nhwc.astype(np.float16) / np.float16(255)).transpose(0, 3, 1, 2)
assert np.array_equal(planar.numpy().view(np.uint16), expected.view(np.uint16))
print("nhwc_to_nchw: 4 images 224x224x3, uint8 and float16, on the device: exact")
