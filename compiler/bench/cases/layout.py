"""Bench cases of the layout operators: a transpose (the hardest: every read or every write
crosses rows; target 0.5 of the copy), copies of views, tile, padding, depth_to_space and
space_to_depth (slice-like: 0.8)."""
from __future__ import annotations

import numpy as np

from ...ops.copy.desc import IdentityDesc
from ...ops.pad.desc import PaddingDesc
from ...ops.space_depth.desc import DepthToSpaceDesc, SpaceToDepthDesc
from ...ops.tile.desc import TileDesc
from .common import BenchCase, bits, tensor


def layout_cases(q: int) -> list[BenchCase]:
    n = 4096 // q
    c, hw = 64 // q, 256
    pads = (0, 0, 2, 2)
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
    ]
