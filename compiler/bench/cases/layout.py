"""Bench cases of the layout operators: a transpose (the hardest: every read or every write
crosses rows; target 0.5 of the copy), copies of views, tile, padding, depth_to_space,
space_to_depth and reverse_subsequences (slice-like: 0.8)."""
from __future__ import annotations

import numpy as np

from ...ops.copy.desc import IdentityDesc
from ...ops.pad.desc import PaddingDesc
from ...ops.reverse.desc import ReverseSubsequencesDesc
from ...ops.space_depth.desc import DepthToSpaceDesc, SpaceToDepthDesc
from ...ops.tile.desc import TileDesc
from .common import BenchCase, bits, tensor


def layout_cases(q: int) -> list[BenchCase]:
    n = 4096 // q
    c, hw = 64 // q, 256
    pads = (0, 0, 2, 2)
    t, batch, f = 256, 64 // q, 256
    return [
        BenchCase(f"transpose f32 [{n},{n}] (copy of x.T)",
                  IdentityDesc(input=tensor("FLOAT32", (n, n), (1, n))),
                  lambda r: (bits(r, (n, n), "float32"),),
                  lambda x: np.ascontiguousarray(x.reshape(n, n).T), 0.5),
        BenchCase(f"copy of a row-broadcast f32 [{n},{n}]",
                  IdentityDesc(input=tensor("FLOAT32", (n, n), (0, 1))),
                  lambda r: (bits(r, (n,), "float32"),),
                  lambda x: np.ascontiguousarray(np.broadcast_to(x, (n, n))), 0.8),
        BenchCase(f"tile f32 [{n // 2},{n}] x (2, 1)",
                  TileDesc(input=tensor("FLOAT32", (n // 2, n)), repeats=(2, 1)),
                  lambda r: (bits(r, (n // 2, n), "float32"),),
                  lambda x: np.tile(x, (2, 1)), 0.8),
        BenchCase(f"pad constant f32 [1,{c},{hw},{hw}] by 2 on H, W",
                  PaddingDesc(input=tensor("FLOAT32", (1, c, hw, hw)),
                              mode="DML_PADDING_MODE_CONSTANT", start_padding=pads,
                              end_padding=pads),
                  lambda r: (bits(r, (1, c, hw, hw), "float32"),),
                  lambda x: np.pad(x, [(p, p) for p in pads]), 0.8),
        BenchCase(f"pad reflect f32 [1,{c},{hw},{hw}] by 2 on H, W",
                  PaddingDesc(input=tensor("FLOAT32", (1, c, hw, hw)),
                              mode="DML_PADDING_MODE_REFLECTION", start_padding=pads,
                              end_padding=pads),
                  lambda r: (bits(r, (1, c, hw, hw), "float32"),),
                  lambda x: np.pad(x, [(p, p) for p in pads], mode="reflect"), 0.8),
        BenchCase(f"depth_to_space f32 [1,{4 * c},{hw // 2},{hw // 2}] block 2",
                  DepthToSpaceDesc(input=tensor("FLOAT32", (1, 4 * c, hw // 2, hw // 2)),
                                   block_size=2),
                  lambda r: (bits(r, (1, 4 * c, hw // 2, hw // 2), "float32"),),
                  lambda x: x.reshape(1, 2, 2, c, hw // 2, hw // 2).transpose(
                      0, 3, 4, 1, 5, 2).reshape(1, c, hw, hw), 0.8),
        BenchCase(f"space_to_depth f32 [1,{c},{hw},{hw}] block 2",
                  SpaceToDepthDesc(input=tensor("FLOAT32", (1, c, hw, hw)), block_size=2),
                  lambda r: (bits(r, (1, c, hw, hw), "float32"),),
                  lambda x: x.reshape(1, c, hw // 2, 2, hw // 2, 2).transpose(
                      0, 3, 5, 1, 2, 4).reshape(1, 4 * c, hw // 2, hw // 2), 0.8),
        BenchCase(f"reverse_subsequences f32 [{t},{batch},{f}] axis 0",
                  ReverseSubsequencesDesc(  # ONNX's [batch] lengths, broadcast (stride 0)
                      input=tensor("FLOAT32", (t, batch, f)),
                      sequence_lengths=tensor("INT32", (1, batch, f), (0, 1, 0)), axis=0),
                  lambda r: (bits(r, (t, batch, f), "float32"),
                             r.integers(0, t + 1, batch).astype(np.int32)),
                  _reversed, 0.8),
    ]


def _reversed(x: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """numpy's reverse_subsequences along axis 0, lengths per batch (axis 1)."""
    out = x.copy()
    for k, n in enumerate(lengths):
        out[:n, k] = x[:n, k][::-1]
    return out
