"""Export the exporter set: small data-movement modules through PyTorch's two ONNX exporters,
with onnxruntime's outputs as the reference (tests/test_onnx_exported.py runs them on dmlc).

Regenerate (torch, onnx, onnxruntime and onnxscript live in their own venv, git-ignored):

    python -m venv .venv-export       # made with torch 2.13.0 (CPU), onnx 1.23.2,
    .venv-export/bin/pip install torch onnx onnxruntime onnxscript  # onnxruntime 1.32.0,
    .venv-export/bin/python tools/export_models.py                   # onnxscript 0.7.2
    .venv-export/bin/python tools/export_models.py Embedding Gather  # only these modules again

(about three minutes for all). It rewrites tests/data/exported/: for every module below and
every export (TorchScript at opset 20 and at opset 11, dynamo at opset 20; each with a static
and with a dynamic batch) one MODULE__EXPORT_BATCH.onnx and .npz, and manifest.json. The .npz
holds, for each reference run, `bB/in/NAME` (the inputs) and `bB/out/NAME` (onnxruntime's
outputs): one run at the export batch (2) for a static batch, three (batches 1, 3, 5) for a
dynamic one. The manifest lists each model (its module, exporter, opset, batch, inputs,
outputs and reference batches; ort_equals_torch per batch; ort_optimized_differs and
ort_unoptimized_failed where onnxruntime's optimizer changes the answer, see references())
and, under "refused", each export that got no files: refused by the exporter (a dynamic one
whose batch came out static too) or that onnxruntime cannot run. Everything is seeded: a rerun
with the same versions writes the same files, byte for byte. With module names, only those
are exported again, and the manifest keeps the other entries.

The modules only move data, written as model code writes them (embeddings, gathers, scatters,
KV-cache updates, joins, pads, layout changes, slices); two (RotateHalf, MaskedSelect) compute
on purpose, for the test's table of refusals. Inputs carry NaN payloads (a signalling one too),
-0.0, subnormals, infinities and int64 extremes, so that a kernel that computes where it should
move shows up bit for bit. Scatter reductions get exact data (small integers), so that their
order cannot matter.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import pathlib
import re
import sys
import tempfile
import traceback
import warnings
import zipfile
import zlib
from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "exported"
EXPORT_BATCH = 2
DYNAMIC_BATCHES = (1, 3, 5)
EXPORTS = (("ts20", "torchscript", 20), ("ts11", "torchscript", 11), ("dynamo20", "dynamo", 20))

# ---------------------------------------------------------------------------------------------
# Input data


F32_SPECIAL = np.array([0x7FC0BEEF, 0xFFC01234, 0x7F800123, 0x80000000, 0x00000001, 0x807FFFFF,
                        0x7F800000, 0xFF800000], np.uint32).view(np.float32)
"""A quiet NaN with a payload, a negative one, a signalling one, -0.0, the smallest and a
negative largest subnormal, +inf and -inf."""
F16_SPECIAL = np.array([0x7E5A, 0xFE01, 0x7C21, 0x8000, 0x0001, 0x83FF, 0x7C00, 0xFC00],
                       np.uint16).view(np.float16)
I64_SPECIAL = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, -1, 0,
                        -(1 << 40) - 3, (1 << 33) + 5], np.int64)
I32_SPECIAL = np.array([np.iinfo(np.int32).min, np.iinfo(np.int32).max, -1, 0], np.int32)
U8_SPECIAL = np.array([0, 255, 128, 127], np.uint8)
SPECIAL = {"float32": F32_SPECIAL, "float16": F16_SPECIAL, "int64": I64_SPECIAL,
           "int32": I32_SPECIAL, "uint8": U8_SPECIAL}


def data(g: np.random.Generator, shape: tuple[int, ...], dtype: str = "float32",
         special: bool = True, snan: bool = True) -> np.ndarray:
    """Distinct-looking values of a dtype, with the dtype's special values planted (the first
    few elements, then every fifth) unless special=False; snan=False leaves out the signalling
    NaN."""
    if dtype in ("float32", "float16"):
        a = g.standard_normal(shape).astype(dtype)
    elif dtype == "bool":
        return g.random(shape) < 0.5
    elif dtype == "uint8":
        a = g.integers(0, 256, shape).astype(np.uint8)
    else:
        a = g.integers(-1000, 1000, shape).astype(dtype)
    if special and a.size:
        flat, sp = a.reshape(-1), SPECIAL[dtype]
        for k, v in enumerate(sp):
            if snan or k != 2:
                flat[(1 + 5 * k) % flat.size] = v
    return a


def exact(g: np.random.Generator, shape: tuple[int, ...], dtype: str = "float32",
          values: tuple[float, ...] = (-3, -2, -1, 1, 2, 3, 4)) -> np.ndarray:
    """Small integers (as any dtype): sums, products, maxima exact in every order."""
    return np.asarray(g.choice(values, shape)).astype(dtype)


def ids(g: np.random.Generator, shape: tuple[int, ...], lo: int, hi: int) -> np.ndarray:
    """int64 indices in [lo, hi)."""
    return g.integers(lo, hi, shape).astype(np.int64)


def unique_rows(g: np.random.Generator, rows: tuple[int, ...], k: int, n: int) -> np.ndarray:
    """int64 [*rows, k]: k distinct indices in [0, n) per row (a scatter without collisions)."""
    flat = [g.permutation(n)[:k] for _ in range(int(np.prod(rows)))]
    return np.array(flat, np.int64).reshape(*rows, k)


# ---------------------------------------------------------------------------------------------
# The modules. Each has `batch` ({input name: its batch axis}) and `example(b, g)` ({input
# name: array}, in forward's order, for batch b).


class Embedding(nn.Module):
    """nn.Embedding: token ids to rows of a learned table."""
    batch = {"ids": 0}

    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        with torch.no_grad():
            self.emb.weight.copy_(torch.from_numpy(data(np.random.default_rng(7), (10, 4))))

    def forward(self, ids):
        return self.emb(ids)

    @staticmethod
    def example(b, g):
        return {"ids": ids(g, (b, 5), 0, 10)}


class EmbeddingF16(nn.Module):
    """F.embedding on a float16 table, ids of rank 3."""
    batch = {"ids": 0}

    def __init__(self) -> None:
        super().__init__()
        table = data(np.random.default_rng(8), (12, 3), "float16")
        self.table = nn.Parameter(torch.from_numpy(table), requires_grad=False)

    def forward(self, ids):
        return F.embedding(ids, self.table)

    @staticmethod
    def example(b, g):
        return {"ids": ids(g, (b, 2, 3), 0, 12)}


class EmbeddingTableInput(nn.Module):
    """F.embedding with the table as an input (tied weights handed in)."""
    batch = {"ids": 0}

    def forward(self, table, ids):
        return F.embedding(ids, table)

    @staticmethod
    def example(b, g):
        return {"table": data(g, (10, 4)), "ids": ids(g, (b, 4), 0, 10)}


class EmbeddingPositions(nn.Module):
    """Token embedding joined with position embedding of torch.arange(seq) (no add: a cat)."""
    batch = {"ids": 0}

    def __init__(self) -> None:
        super().__init__()
        self.tok, self.pos = nn.Embedding(10, 3), nn.Embedding(8, 2)
        g = np.random.default_rng(9)
        with torch.no_grad():
            self.tok.weight.copy_(torch.from_numpy(data(g, (10, 3))))
            self.pos.weight.copy_(torch.from_numpy(data(g, (8, 2))))

    def forward(self, ids):
        positions = torch.arange(ids.shape[1])
        pos = self.pos(positions)[None].expand(ids.shape[0], -1, -1)
        return torch.cat([self.tok(ids), pos], dim=-1)

    @staticmethod
    def example(b, g):
        return {"ids": ids(g, (b, 4), 0, 10)}


class IndexSelectBuffer(nn.Module):
    """index_select with a registered index buffer (a repeated index too)."""
    batch = {"x": 0}

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("idx", torch.tensor([5, 0, 2, 2]))

    def forward(self, x):
        return x.index_select(1, self.idx)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 6, 3))}


class IndexSelectInput(nn.Module):
    """torch.index_select of int64 data, the index an input."""
    batch = {"x": 0}

    def forward(self, x, idx):
        return torch.index_select(x, 2, idx)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3, 5), "int64"), "idx": ids(g, (4,), 0, 5)}


class IndexSelectInt32Index(nn.Module):
    """index_select of float16 data by an int32 index."""
    batch = {"x": 0}

    def forward(self, x, idx):
        return x.index_select(1, idx)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 4), "float16"), "idx": ids(g, (3,), 0, 4).astype(np.int32)}


class BeamReorder(nn.Module):
    """Beam search: reorder a cache's batch rows by beam_idx (index_select on dim 0)."""
    batch = {"cache": 0, "beam_idx": 0}

    def forward(self, cache, beam_idx):
        return cache.index_select(0, beam_idx)

    @staticmethod
    def example(b, g):
        return {"cache": data(g, (b, 2, 3, 2)), "beam_idx": g.permutation(b).astype(np.int64)}


class Gather(nn.Module):
    """torch.gather along dim 1."""
    batch = {"x": 0, "idx": 0}

    def forward(self, x, idx):
        return torch.gather(x, 1, idx)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 5, 3)), "idx": ids(g, (b, 4, 3), 0, 5)}


class GatherLastDimInt64(nn.Module):
    """x.gather(-1, idx) of int64 data, more indices than the axis is long."""
    batch = {"x": 0, "idx": 0}

    def forward(self, x, idx):
        return x.gather(-1, idx)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3, 4), "int64"), "idx": ids(g, (b, 3, 6), 0, 4)}


class GatherLengths(nn.Module):
    """The last valid token of each sequence: gather at lengths - 1 (index arithmetic)."""
    batch = {"x": 0, "lengths": 0}

    def forward(self, x, lengths):
        idx = (lengths - 1).view(-1, 1, 1).expand(-1, 1, x.size(2))
        return x.gather(1, idx).squeeze(1)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 6, 4)), "lengths": ids(g, (b,), 1, 7)}


class Take(nn.Module):
    """torch.take: flat indices, negative ones among them."""
    batch = {"x": 0}

    def forward(self, x, idx):
        return torch.take(x, idx)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3, 4)), "idx": ids(g, (2, 3), -12, 12)}


class TakeAlongDim(nn.Module):
    """torch.take_along_dim along dim 2."""
    batch = {"x": 0, "idx": 0}

    def forward(self, x, idx):
        return torch.take_along_dim(x, idx, dim=2)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3, 4)), "idx": ids(g, (b, 3, 2), 0, 4)}


class TakeAlongDimNegative(nn.Module):
    """take_along_dim along the last dim, with negative indices."""
    batch = {"x": 0, "idx": 0}

    def forward(self, x, idx):
        return x.take_along_dim(idx, dim=-1)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2, 4), "int32"), "idx": ids(g, (b, 2, 3), -4, 4)}


class TakeAlongDimFlat(nn.Module):
    """take_along_dim without dim: flattened input and indices."""
    batch = {"x": 0}

    def forward(self, x, idx):
        return torch.take_along_dim(x, idx)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2, 3)), "idx": ids(g, (4,), 0, 6)}


class NegativeIndexBuffer(nn.Module):
    """x[:, idx] with a buffer of negative and positive indices."""
    batch = {"x": 0}

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("idx", torch.tensor([-1, 0, -2]))

    def forward(self, x):
        return x[:, self.idx]

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 5, 2))}


class ListIndex(nn.Module):
    """x[:, [0, 2, 3]] of uint8 data: a constant index list."""
    batch = {"x": 0}

    def forward(self, x):
        return x[:, [0, 2, 3]]

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 4, 3), "uint8")}


class ClsToken(nn.Module):
    """CLS pooling: x[:, 0]."""
    batch = {"x": 0}

    def forward(self, x):
        return x[:, 0]

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 5, 4))}


class LastToken(nn.Module):
    """Last-token pooling of float16 hidden states: x[:, -1]."""
    batch = {"x": 0}

    def forward(self, x):
        return x[:, -1]

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 5, 4), "float16")}


class SelectNegative(nn.Module):
    """x.select(2, -2) of int32 data."""
    batch = {"x": 0}

    def forward(self, x):
        return x.select(2, -2)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3, 4), "int32")}


class BatchPositions(nn.Module):
    """x[torch.arange(B), pos]: one row per batch element (pooling at a position)."""
    batch = {"x": 0, "pos": 0}

    def forward(self, x, pos):
        return x[torch.arange(x.shape[0]), pos]

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 6, 3)), "pos": ids(g, (b,), 0, 6)}


class PairIndex(nn.Module):
    """x[i, j] with index tensors (the batch is the indices')."""
    batch = {"i": 0, "j": 0}

    def forward(self, x, i, j):
        return x[i, j]

    @staticmethod
    def example(b, g):
        return {"x": data(g, (4, 5, 3)), "i": ids(g, (b,), -4, 4), "j": ids(g, (b,), 0, 5)}


class PairIndexBroadcast(nn.Module):
    """x[:, i, j] with index tensors that broadcast ([2, 1] and [1, 3])."""
    batch = {"x": 0}

    def forward(self, x, i, j):
        return x[:, i, j]

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 4, 5)), "i": ids(g, (2, 1), 0, 4), "j": ids(g, (1, 3), 0, 5)}


class Scatter(nn.Module):
    """x.scatter(1, idx, src), no two indices of a row alike."""
    batch = {"x": 0, "idx": 0, "src": 0}

    def forward(self, x, idx, src):
        return x.scatter(1, idx, src)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 5)), "idx": unique_rows(g, (b,), 3, 5),
                "src": data(g, (b, 3), special=False)}


class ScatterValue(nn.Module):
    """x.scatter(2, idx, -0.0): a scalar value."""
    batch = {"x": 0, "idx": 0}

    def forward(self, x, idx):
        return x.scatter(2, idx, -0.0)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2, 5)), "idx": unique_rows(g, (b, 2), 2, 5)}


class ScatterInPlace(nn.Module):
    """y = x.clone(); y.scatter_(1, idx, src) on int64 data."""
    batch = {"x": 0, "idx": 0, "src": 0}

    def forward(self, x, idx, src):
        y = x.clone()
        y.scatter_(1, idx, src)
        return y

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 6, 2), "int64"), "idx": unique_rows(g, (b,), 4, 6)
                .reshape(b, 4, 1).repeat(2, 2), "src": data(g, (b, 4, 2), "int64")}


class ScatterOneHot(nn.Module):
    """One-hot by scatter: torch.zeros(B, C).scatter_(1, labels[:, None], 1.0)."""
    batch = {"labels": 0}

    def forward(self, labels):
        return torch.zeros(labels.shape[0], 6).scatter_(1, labels[:, None], 1.0)

    @staticmethod
    def example(b, g):
        return {"labels": ids(g, (b,), 0, 6)}


class ScatterAdd(nn.Module):
    """x.scatter_add(1, idx, src), colliding indices, exact float32 data."""
    batch = {"x": 0, "idx": 0, "src": 0}

    def forward(self, x, idx, src):
        return x.scatter_add(1, idx, src)

    @staticmethod
    def example(b, g):
        return {"x": exact(g, (b, 4)), "idx": ids(g, (b, 6), 0, 4), "src": exact(g, (b, 6))}


class ScatterAddInt64(nn.Module):
    """torch.scatter_add of int64 data along the last dim."""
    batch = {"x": 0, "idx": 0, "src": 0}

    def forward(self, x, idx, src):
        return torch.scatter_add(x, -1, idx, src)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2, 3), "int64", special=False), "idx": ids(g, (b, 2, 5), 0, 3),
                "src": data(g, (b, 2, 5), "int64", special=False)}


class ScatterReduce(nn.Module):
    """x.scatter_reduce(1, idx, src, reduce, include_self), colliding indices."""
    batch = {"x": 0, "idx": 0, "src": 0}
    DTYPE = {"sum": "float32", "prod": "float32", "amax": "float32", "amin": "int64"}

    def __init__(self, reduce: str, include_self: bool) -> None:
        super().__init__()
        self.reduce, self.include_self = reduce, include_self

    def forward(self, x, idx, src):
        return x.scatter_reduce(1, idx, src, self.reduce, include_self=self.include_self)

    def example(self, b, g):
        dtype = self.DTYPE[self.reduce]
        vals = (-2, -1, 0.5, 1, 2) if self.reduce == "prod" else (-3, -2, -1, 1, 2, 3, 4, 7)
        return {"x": exact(g, (b, 5), dtype, vals), "idx": ids(g, (b, 7), 0, 4),
                "src": exact(g, (b, 7), dtype, vals)}


class IndexPut(nn.Module):
    """x[idx] = v on a clone (the batch on dim 1)."""
    batch = {"x": 1, "v": 1}

    def forward(self, x, idx, v):
        x = x.clone()
        x[idx] = v
        return x

    @staticmethod
    def example(b, g):
        return {"x": data(g, (5, b, 2)), "idx": np.array([4, 1], np.int64),
                "v": data(g, (2, b, 2), special=False)}


class IndexPutColumns(nn.Module):
    """y[:, idx] = v on a clone."""
    batch = {"y": 0, "v": 0}

    def forward(self, y, idx, v):
        y = y.clone()
        y[:, idx] = v
        return y

    @staticmethod
    def example(b, g):
        return {"y": data(g, (b, 6)), "idx": unique_rows(g, (), 3, 6),
                "v": data(g, (b, 3), special=False)}


class IndexPutNaN(nn.Module):
    """x[:, idx] = float('nan'): a scalar fill."""
    batch = {"x": 0}

    def forward(self, x, idx):
        x = x.clone()
        x[:, idx] = float("nan")
        return x

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 5, 2)), "idx": np.array([3, 0], np.int64)}


class IndexPutAccumulate(nn.Module):
    """x.index_put((idx,), v, accumulate=True) of int64 data, colliding indices."""
    batch = {"x": 1, "v": 1}

    def forward(self, x, idx, v):
        return x.index_put((idx,), v, accumulate=True)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (6, b), "int64", special=False), "idx": ids(g, (4,), 0, 6),
                "v": data(g, (4, b), "int64", special=False)}


class IndexPutPairs(nn.Module):
    """m[:, i, j] = v on a bool mask."""
    batch = {"m": 0, "v": 0}

    def forward(self, m, i, j, v):
        m = m.clone()
        m[:, i, j] = v
        return m

    @staticmethod
    def example(b, g):
        pairs = g.permutation(20)[:3]
        return {"m": data(g, (b, 4, 5), "bool"), "i": (pairs // 5).astype(np.int64),
                "j": (pairs % 5).astype(np.int64), "v": data(g, (b, 3), "bool")}


class IndexCopy(nn.Module):
    """x.index_copy(1, idx, src)."""
    batch = {"x": 0, "src": 0}

    def forward(self, x, idx, src):
        return x.index_copy(1, idx, src)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 6, 2)), "idx": unique_rows(g, (), 3, 6),
                "src": data(g, (b, 3, 2), special=False)}


class KVCacheSlice(nn.Module):
    """cache[:, :, t:t+n] = new on a clone, t a Python int."""
    batch = {"cache": 0, "new": 0}
    t = 3

    def forward(self, cache, new):
        cache = cache.clone()
        cache[:, :, self.t:self.t + new.shape[2]] = new
        return cache

    @staticmethod
    def example(b, g):
        return {"cache": data(g, (b, 2, 8, 3)), "new": data(g, (b, 2, 2, 3), special=False)}


class KVCacheInPlace(nn.Module):
    """cache[:, :, t:t+n] = new on the input itself (returned), t a Python int."""
    batch = {"cache": 0, "new": 0}
    t = 5

    def forward(self, cache, new):
        cache[:, :, self.t:self.t + new.shape[2]] = new
        return cache

    @staticmethod
    def example(b, g):
        return {"cache": data(g, (b, 2, 8, 3), "float16"),
                "new": data(g, (b, 2, 3, 3), "float16", special=False)}


class KVCacheTensorStart(nn.Module):
    """cache[:, :, t:t+n] = new, t a 0-d int64 tensor input."""
    batch = {"cache": 0, "new": 0}

    def forward(self, cache, new, t):
        cache = cache.clone()
        cache[:, :, t:t + new.shape[2]] = new
        return cache

    @staticmethod
    def example(b, g):
        return {"cache": data(g, (b, 2, 8, 3)), "new": data(g, (b, 2, 2, 3), special=False),
                "t": np.array(4, np.int64)}


class KVCacheIndexCopy(nn.Module):
    """HF StaticCache: cache.index_copy_(2, cache_position, new) on a clone."""
    batch = {"cache": 0, "new": 0}

    def forward(self, cache, new, cache_position):
        cache = cache.clone()
        cache.index_copy_(2, cache_position, new)
        return cache

    @staticmethod
    def example(b, g):
        return {"cache": data(g, (b, 2, 8, 3)), "new": data(g, (b, 2, 2, 3), special=False),
                "cache_position": np.array([6, 7], np.int64)}


class KVCachePositions(nn.Module):
    """k_cache[:, :, pos] = k and v_cache[:, :, pos] = v: two updated caches out."""
    batch = {"k_cache": 0, "v_cache": 0, "k": 0, "v": 0}

    def forward(self, k_cache, v_cache, k, v, pos):
        k_cache, v_cache = k_cache.clone(), v_cache.clone()
        k_cache[:, :, pos] = k
        v_cache[:, :, pos] = v
        return k_cache, v_cache

    @staticmethod
    def example(b, g):
        return {"k_cache": data(g, (b, 2, 6, 2)), "v_cache": data(g, (b, 2, 6, 2)),
                "k": data(g, (b, 2, 1, 2), special=False),
                "v": data(g, (b, 2, 1, 2), special=False), "pos": np.array([2], np.int64)}


class KVCacheCat(nn.Module):
    """Dynamic cache: torch.cat([past, new], dim=2)."""
    batch = {"past": 0, "new": 0}

    def forward(self, past, new):
        return torch.cat([past, new], dim=2)

    @staticmethod
    def example(b, g):
        return {"past": data(g, (b, 2, 4, 3)), "new": data(g, (b, 2, 1, 3))}


class Cat(nn.Module):
    """torch.cat((a, b, c), -1) of int64 data."""
    batch = {"a": 0, "b": 0, "c": 0}

    def forward(self, a, b, c):
        return torch.cat((a, b, c), -1)

    @staticmethod
    def example(b, g):
        return {"a": data(g, (b, 2, 3), "int64"), "b": data(g, (b, 2, 1), "int64"),
                "c": data(g, (b, 2, 2), "int64")}


class Stack(nn.Module):
    """torch.stack([a, b, c], dim=1) of float16 data."""
    batch = {"a": 0, "b": 0, "c": 0}

    def forward(self, a, b, c):
        return torch.stack([a, b, c], dim=1)

    @staticmethod
    def example(b, g):
        return {k: data(g, (b, 4), "float16") for k in "abc"}


class StackBoolLast(nn.Module):
    """torch.stack([a, b], -1) of bool masks."""
    batch = {"a": 0, "b": 0}

    def forward(self, a, b):
        return torch.stack([a, b], -1)

    @staticmethod
    def example(b, g):
        return {k: data(g, (b, 3), "bool") for k in "ab"}


class Split(nn.Module):
    """x.split(2, dim=1): three pieces, the last shorter."""
    batch = {"x": 0}

    def forward(self, x):
        return x.split(2, dim=1)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 5, 2))}


class SplitSizes(nn.Module):
    """x.split([1, 3], dim=-1) of int32 data."""
    batch = {"x": 0}

    def forward(self, x):
        return x.split([1, 3], dim=-1)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3, 4), "int32")}


class Chunk(nn.Module):
    """x.chunk(3, dim=1), e.g. q, k, v out of one projection."""
    batch = {"x": 0}

    def forward(self, x):
        q, k, v = x.chunk(3, dim=1)
        return q, k, v

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 6, 2))}


class Unbind(nn.Module):
    """x.unbind(1)."""
    batch = {"x": 0}

    def forward(self, x):
        return x.unbind(1)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3, 2))}


class ChunkSwap(nn.Module):
    """The halves of the last dim swapped: a, b = x.chunk(2, -1); cat([b, a], -1)."""
    batch = {"x": 0}

    def forward(self, x):
        a, b = x.chunk(2, -1)
        return torch.cat([b, a], -1)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2, 6))}


class ClsPrepend(nn.Module):
    """ViT: torch.cat([cls_token.expand(B, -1, -1), x], dim=1)."""
    batch = {"x": 0}

    def __init__(self) -> None:
        super().__init__()
        cls = data(np.random.default_rng(10), (1, 1, 4))
        self.cls_token = nn.Parameter(torch.from_numpy(cls), requires_grad=False)

    def forward(self, x):
        return torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3, 4))}


class Pad(nn.Module):
    """F.pad in one of its four modes, over the last 1, 2 or 3 dims."""
    batch = {"x": 0}
    SHAPE = {1: (2, 5), 2: (2, 3, 4), 3: (1, 2, 3, 4)}
    PADS = {1: (2, 1), 2: (1, 2, 2, 0), 3: (1, 1, 0, 2, 1, 0)}
    VALUE = {1: -0.0, 2: 0.0, 3: 2.5}

    def __init__(self, mode: str, dims: int, dtype: str = "float32") -> None:
        super().__init__()
        self.mode, self.dims, self.dtype = mode, dims, dtype

    def forward(self, x):
        if self.mode == "constant":
            return F.pad(x, self.PADS[self.dims], value=self.VALUE[self.dims])
        return F.pad(x, self.PADS[self.dims], mode=self.mode)

    def example(self, b, g):  # onnxruntime's float16 edge Pad quiets a signalling NaN
        return {"x": data(g, (b, *self.SHAPE[self.dims]), self.dtype,
                          snan=self.dtype != "float16")}


class TokenShift(nn.Module):
    """RWKV's time shift: F.pad(x, (0, 0, 1, -1)) (a negative pad crops)."""
    batch = {"x": 0}

    def forward(self, x):
        return F.pad(x, (0, 0, 1, -1))

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 5, 3))}


class Repeat(nn.Module):
    """x.repeat(1, 2, 3)."""
    batch = {"x": 0}

    def forward(self, x):
        return x.repeat(1, 2, 3)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2, 2))}


class Expand(nn.Module):
    """x.expand(-1, 4, -1)."""
    batch = {"x": 0}

    def forward(self, x):
        return x.expand(-1, 4, -1)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 1, 3))}


class ExpandMask(nn.Module):
    """An attention mask: mask[:, None, None, :].expand(B, 1, T, T) (bool)."""
    batch = {"mask": 0}

    def forward(self, mask):
        b, t = mask.shape
        return mask[:, None, None, :].expand(b, 1, t, t)

    @staticmethod
    def example(b, g):
        return {"mask": data(g, (b, 4), "bool")}


class Tile(nn.Module):
    """x.tile((1, 3)) of uint8 data."""
    batch = {"x": 0}

    def forward(self, x):
        return x.tile((1, 3))

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3), "uint8")}


class RepeatInterleave(nn.Module):
    """x.repeat_interleave(2, dim=1)."""
    batch = {"x": 0}

    def forward(self, x):
        return x.repeat_interleave(2, dim=1)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3, 2))}


class RepeatInterleaveFlat(nn.Module):
    """torch.repeat_interleave(x, 3): no dim, the flattened input."""
    batch = {"x": 0}

    def forward(self, x):
        return torch.repeat_interleave(x, 3)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2), "int64")}


class RepeatKV(nn.Module):
    """Grouped-query attention's repeat_kv: expand a new axis, then reshape."""
    batch = {"hidden": 0}
    n_rep = 2

    def forward(self, hidden):
        b, kv, s, d = hidden.shape
        hidden = hidden[:, :, None, :, :].expand(b, kv, self.n_rep, s, d)
        return hidden.reshape(b, kv * self.n_rep, s, d)

    @staticmethod
    def example(b, g):
        return {"hidden": data(g, (b, 2, 3, 2))}


class Permute(nn.Module):
    """x.permute(0, 2, 3, 1): NCHW to NHWC."""
    batch = {"x": 0}

    def forward(self, x):
        return x.permute(0, 2, 3, 1)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2, 3, 4))}


class ImageToCHW(nn.Module):
    """uint8 images NHWC to NCHW."""
    batch = {"img": 0}

    def forward(self, img):
        return img.permute(0, 3, 1, 2)

    @staticmethod
    def example(b, g):
        return {"img": data(g, (b, 4, 3, 3), "uint8")}


class Transpose(nn.Module):
    """x.transpose(1, 2) of int64 data."""
    batch = {"x": 0}

    def forward(self, x):
        return x.transpose(1, 2)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3, 4), "int64")}


class Movedim(nn.Module):
    """x.movedim(1, -1)."""
    batch = {"x": 0}

    def forward(self, x):
        return x.movedim(1, -1)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3, 2, 2))}


class SplitHeads(nn.Module):
    """Attention: x.view(B, T, H, D).transpose(1, 2) with B, T from x.shape."""
    batch = {"x": 0}
    heads = 2

    def forward(self, x):
        b, t, c = x.shape
        return x.view(b, t, self.heads, c // self.heads).transpose(1, 2)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3, 4))}


class MergeHeads(nn.Module):
    """Attention: x.transpose(1, 2).contiguous().view(B, T, H * D)."""
    batch = {"x": 0}

    def forward(self, x):
        b, h, t, d = x.size()
        return x.transpose(1, 2).contiguous().view(b, t, h * d)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2, 3, 2))}


class Flatten(nn.Module):
    """x.flatten(1) of float16 data."""
    batch = {"x": 0}

    def forward(self, x):
        return x.flatten(1)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2, 3, 2), "float16")}


class Unflatten(nn.Module):
    """x.unflatten(-1, (2, 3))."""
    batch = {"x": 0}

    def forward(self, x):
        return x.unflatten(-1, (2, 3))

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2, 6))}


class Squeeze(nn.Module):
    """x.squeeze(2)."""
    batch = {"x": 0}

    def forward(self, x):
        return x.squeeze(2)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3, 1, 2))}


class Unsqueeze(nn.Module):
    """x.unsqueeze(1) of int32 data."""
    batch = {"x": 0}

    def forward(self, x):
        return x.unsqueeze(1)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 4), "int32")}


class ViewFlat(nn.Module):
    """x.view(-1): batch and all, flat."""
    batch = {"x": 0}

    def forward(self, x):
        return x.view(-1)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2, 3))}


class ViTPatchify(nn.Module):
    """ViT patches by reshape and permute: [B, C, H, W] to [B, H/p * W/p, C * p * p]."""
    batch = {"x": 0}
    p = 2

    def forward(self, x):
        b, c, h, w = x.shape
        p = self.p
        x = x.reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 1, 3, 5)
        return x.reshape(b, (h // p) * (w // p), c * p * p)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2, 4, 4))}


class PatchifyUnfold(nn.Module):
    """Patches by Tensor.unfold twice, then permute and reshape."""
    batch = {"x": 0}
    p = 2

    def forward(self, x):
        p = self.p
        x = x.unfold(2, p, p).unfold(3, p, p)          # [B, C, H/p, W/p, p, p]
        x = x.permute(0, 2, 3, 1, 4, 5)
        return x.reshape(x.shape[0], -1, x.shape[3] * p * p)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 1, 4, 6))}


class SlidingWindow(nn.Module):
    """x.unfold(1, 3, 2): overlapping windows."""
    batch = {"x": 0}

    def forward(self, x):
        return x.unfold(1, 3, 2)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 7))}


class SwinWindows(nn.Module):
    """Swin's window_partition: view, permute, reshape to [-1, w, w, C]."""
    batch = {"x": 0}
    w = 2

    def forward(self, x):
        b, h, wd, c = x.shape
        w = self.w
        x = x.view(b, h // w, w, wd // w, w, c)
        return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, w, w, c)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 4, 4, 2))}


class SwinShift(nn.Module):
    """Swin's cyclic shift: torch.roll(x, shifts=(-1, -1), dims=(1, 2))."""
    batch = {"x": 0}

    def forward(self, x):
        return torch.roll(x, shifts=(-1, -1), dims=(1, 2))

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3, 4, 2))}


class ChannelShuffle(nn.Module):
    """ShuffleNet: view(B, g, C/g, H, W).transpose(1, 2).contiguous().view(B, C, H, W)."""
    batch = {"x": 0}
    groups = 2

    def forward(self, x):
        b, c, h, w = x.shape
        x = x.view(b, self.groups, c // self.groups, h, w).transpose(1, 2).contiguous()
        return x.view(b, c, h, w)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 4, 2, 2))}


class SliceStep(nn.Module):
    """x[:, 1::2]."""
    batch = {"x": 0}

    def forward(self, x):
        return x[:, 1::2]

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 7, 2))}


class SliceEllipsisStep(nn.Module):
    """x[..., ::3] of int64 data."""
    batch = {"x": 0}

    def forward(self, x):
        return x[..., ::3]

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2, 8), "int64")}


class SliceNegative(nn.Module):
    """x[:, -3:, 1:-1]."""
    batch = {"x": 0}

    def forward(self, x):
        return x[:, -3:, 1:-1]

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 5, 4))}


class SliceHalf(nn.Module):
    """x[:, : x.size(1) // 2]: a bound from the shape."""
    batch = {"x": 0}

    def forward(self, x):
        return x[:, : x.size(1) // 2]

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 6, 2), "float16")}


class Narrow(nn.Module):
    """x.narrow(1, 1, 3)."""
    batch = {"x": 0}

    def forward(self, x):
        return x.narrow(1, 1, 3)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 5, 2))}


class NoneEllipsis(nn.Module):
    """x[..., None, 1:]."""
    batch = {"x": 0}

    def forward(self, x):
        return x[..., None, 1:]

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2, 4))}


class Flip(nn.Module):
    """x.flip(1)."""
    batch = {"x": 0}

    def forward(self, x):
        return x.flip(1)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 5, 2))}


class FlipImage(nn.Module):
    """uint8 images flipped on both spatial dims: x.flip(-1, -2)."""
    batch = {"x": 0}

    def forward(self, x):
        return x.flip(-1, -2)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 1, 3, 4), "uint8")}


class Roll(nn.Module):
    """x.roll(2, dims=1)."""
    batch = {"x": 0}

    def forward(self, x):
        return x.roll(2, dims=1)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 5, 2))}


class RollFlat(nn.Module):
    """torch.roll(x, 3): no dims, the flattened tensor."""
    batch = {"x": 0}

    def forward(self, x):
        return torch.roll(x, 3)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2, 3), "int32")}


class PixelShuffle(nn.Module):
    """F.pixel_shuffle(x, 2)."""
    batch = {"x": 0}

    def forward(self, x):
        return F.pixel_shuffle(x, 2)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 8, 2, 3))}


class PixelUnshuffle(nn.Module):
    """F.pixel_unshuffle(x, 2)."""
    batch = {"x": 0}

    def forward(self, x):
        return F.pixel_unshuffle(x, 2)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2, 4, 2))}


class OneHot(nn.Module):
    """F.one_hot(ids, num_classes=6) (int64 out)."""
    batch = {"ids": 0}

    def forward(self, ids):
        return F.one_hot(ids, num_classes=6)

    @staticmethod
    def example(b, g):
        return {"ids": ids(g, (b, 3), 0, 6)}


class SelectTensorIndex(nn.Module):
    """x[:, t] with t a 0-d int64 tensor input (a position chosen at run time)."""
    batch = {"x": 0}

    def forward(self, x, t):
        return x[:, t]

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 5, 3)), "t": np.array(-2, np.int64)}


class NarrowTensorStart(nn.Module):
    """x.narrow(1, t, 2) with t a 0-d int64 tensor input."""
    batch = {"x": 0}

    def forward(self, x, t):
        return x.narrow(1, t, 2)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 6, 2)), "t": np.array(3, np.int64)}


class KVCacheStep(nn.Module):
    """A decode step: cache[:, :, t] = new, t a 0-d int64 tensor input."""
    batch = {"cache": 0, "new": 0}

    def forward(self, cache, new, t):
        cache = cache.clone()
        cache[:, :, t] = new
        return cache

    @staticmethod
    def example(b, g):
        return {"cache": data(g, (b, 2, 6, 3)), "new": data(g, (b, 2, 3), special=False),
                "t": np.array(4, np.int64)}


class KVCacheSlidingWindow(nn.Module):
    """A sliding-window cache: torch.cat([cache[:, :, 1:], new], dim=2)."""
    batch = {"cache": 0, "new": 0}

    def forward(self, cache, new):
        return torch.cat([cache[:, :, 1:], new], dim=2)

    @staticmethod
    def example(b, g):
        return {"cache": data(g, (b, 2, 4, 2), "float16"),
                "new": data(g, (b, 2, 1, 2), "float16")}


class BatchHalves(nn.Module):
    """The batch cut in two halves (classifier-free guidance's uncond/cond): at batch 1 the
    first is empty."""
    batch = {"x": 0}

    def forward(self, x):
        half = x.shape[0] // 2
        return x[:half], x[half:]

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3))}


class FlipBatch(nn.Module):
    """x.flip(0): the batch reversed."""
    batch = {"x": 0}

    def forward(self, x):
        return x.flip(0)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2, 2))}


class RollBatch(nn.Module):
    """x.roll(1, 0): the batch rotated."""
    batch = {"x": 0}

    def forward(self, x):
        return x.roll(1, 0)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3), "int64")}


class MergeBatch(nn.Module):
    """x.view(-1, *x.shape[2:]): batch and sequence merged."""
    batch = {"x": 0}

    def forward(self, x):
        return x.view(-1, *x.shape[2:])

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3, 2))}


class BeamExpand(nn.Module):
    """HF generate: input_ids.repeat_interleave(num_beams, dim=0)."""
    batch = {"input_ids": 0}

    def forward(self, input_ids):
        return input_ids.repeat_interleave(2, dim=0)

    @staticmethod
    def example(b, g):
        return {"input_ids": ids(g, (b, 4), 0, 1000)}


class ReverseByArange(nn.Module):
    """x.index_select(1, torch.arange(n - 1, -1, -1)): reversal by a descending range."""
    batch = {"x": 0}

    def forward(self, x):
        return x.index_select(1, torch.arange(x.size(1) - 1, -1, -1))

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 4, 2))}


class GatherExpandedIndex(nn.Module):
    """x.gather(1, idx.unsqueeze(-1).expand(-1, -1, x.size(-1))): rows by index."""
    batch = {"x": 0, "idx": 0}

    def forward(self, x, idx):
        return x.gather(1, idx.unsqueeze(-1).expand(-1, -1, x.size(-1)))

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 5, 3)), "idx": ids(g, (b, 2), 0, 5)}


class BatchRowsGather(nn.Module):
    """Top-k style: x[torch.arange(B)[:, None], idx] with idx [B, k]."""
    batch = {"x": 0, "idx": 0}

    def forward(self, x, idx):
        return x[torch.arange(x.shape[0])[:, None], idx]

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 6, 2)), "idx": ids(g, (b, 3), -6, 6)}


class IndexFill(nn.Module):
    """x.index_fill(1, idx, -1.5)."""
    batch = {"x": 0}

    def forward(self, x, idx):
        return x.index_fill(1, idx, -1.5)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 5, 2)), "idx": np.array([4, 1], np.int64)}


class IndexAddInt64(nn.Module):
    """x.index_add(1, idx, src) of int64 data, colliding indices."""
    batch = {"x": 0, "src": 0}

    def forward(self, x, idx, src):
        return x.index_add(1, idx, src)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 4), "int64", special=False), "idx": ids(g, (5,), 0, 4),
                "src": data(g, (b, 5), "int64", special=False)}


class SliceScatter(nn.Module):
    """torch.slice_scatter(x, src, dim=1, start=1, end=6, step=2)."""
    batch = {"x": 0, "src": 0}

    def forward(self, x, src):
        return torch.slice_scatter(x, src, dim=1, start=1, end=6, step=2)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 7, 2)), "src": data(g, (b, 3, 2), special=False)}


class SelectScatter(nn.Module):
    """torch.select_scatter(x, src, 1, -1)."""
    batch = {"x": 0, "src": 0}

    def forward(self, x, src):
        return torch.select_scatter(x, src, 1, -1)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3, 2), "int32"), "src": data(g, (b, 2), "int32")}


class TensorSplit(nn.Module):
    """torch.tensor_split(x, [1, 3], dim=1)."""
    batch = {"x": 0}

    def forward(self, x):
        return torch.tensor_split(x, [1, 3], dim=1)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 5))}


class BoolListIndex(nn.Module):
    """x[:, torch.tensor([True, False, True, True])]: a constant mask."""
    batch = {"x": 0}

    def forward(self, x):
        return x[:, torch.tensor([True, False, True, True])]

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 4, 2))}


class ChannelShuffleModule(nn.Module):
    """nn.ChannelShuffle(2)."""
    batch = {"x": 0}

    def __init__(self) -> None:
        super().__init__()
        self.shuffle = nn.ChannelShuffle(2)

    def forward(self, x):
        return self.shuffle(x)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 4, 1, 2))}


class FlattenTranspose(nn.Module):
    """A patch embedding's tail: x.flatten(2).transpose(1, 2) ([B, C, H, W] to [B, HW, C])."""
    batch = {"x": 0}

    def forward(self, x):
        return x.flatten(2).transpose(1, 2)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3, 2, 2))}


class Interleave(nn.Module):
    """torch.stack([x[..., 1::2], x[..., 0::2]], -1).flatten(-2): pairs swapped."""
    batch = {"x": 0}

    def forward(self, x):
        return torch.stack([x[..., 1::2], x[..., 0::2]], -1).flatten(-2)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2, 6))}


class Im2Col(nn.Module):
    """F.unfold(x, kernel_size=2, stride=2): patches as columns."""
    batch = {"x": 0}

    def forward(self, x):
        return F.unfold(x, kernel_size=2, stride=2)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 2, 4, 4))}


class RotateHalf(nn.Module):
    """Rotary embedding's rotate_half: cat((-x2, x1), -1). Negates float data: out of scope."""
    batch = {"x": 0}

    def forward(self, x):
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat((-x2, x1), dim=-1)

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 3, 4))}


class MaskedSelect(nn.Module):
    """x[mask]: a data-dependent shape (NonZero): out of scope."""
    batch = {"x": 0, "mask": 0}

    def forward(self, x, mask):
        return x[mask]

    @staticmethod
    def example(b, g):
        return {"x": data(g, (b, 4)), "mask": data(g, (b, 4), "bool")}


SIMPLE = [Embedding, EmbeddingF16, EmbeddingTableInput, EmbeddingPositions, IndexSelectBuffer,
          IndexSelectInput, IndexSelectInt32Index, BeamReorder, Gather, GatherLastDimInt64,
          GatherLengths, Take, TakeAlongDim, TakeAlongDimNegative, TakeAlongDimFlat,
          NegativeIndexBuffer, ListIndex, ClsToken, LastToken, SelectNegative, BatchPositions,
          PairIndex, PairIndexBroadcast, Scatter, ScatterValue, ScatterInPlace, ScatterOneHot,
          ScatterAdd, ScatterAddInt64]
MODULES: dict[str, Callable[[], nn.Module]] = {c.__name__: c for c in SIMPLE}
for _reduce in ("sum", "prod", "amax", "amin"):
    for _self in (True, False):
        MODULES[f"ScatterReduce{_reduce.capitalize()}{'' if _self else 'NoSelf'}"] = (
            lambda r=_reduce, s=_self: ScatterReduce(r, s))
MODULES.update({c.__name__: c for c in [
    IndexPut, IndexPutColumns, IndexPutNaN, IndexPutAccumulate, IndexPutPairs, IndexCopy,
    KVCacheSlice, KVCacheInPlace, KVCacheTensorStart, KVCacheIndexCopy, KVCachePositions,
    KVCacheCat, Cat, Stack, StackBoolLast, Split, SplitSizes, Chunk, Unbind, ChunkSwap,
    ClsPrepend]})
for _mode in ("constant", "reflect", "replicate", "circular"):
    for _dims in (1, 2, 3):
        _dtype = "float16" if (_mode, _dims) == ("replicate", 2) else "float32"
        MODULES[f"Pad{_mode.capitalize()}{_dims}d"] = (
            lambda m=_mode, d=_dims, t=_dtype: Pad(m, d, t))
MODULES.update({c.__name__: c for c in [
    TokenShift, Repeat, Expand, ExpandMask, Tile, RepeatInterleave, RepeatInterleaveFlat,
    RepeatKV, Permute, ImageToCHW, Transpose, Movedim, SplitHeads, MergeHeads, Flatten,
    Unflatten, Squeeze, Unsqueeze, ViewFlat, ViTPatchify, PatchifyUnfold, SlidingWindow,
    SwinWindows, SwinShift, ChannelShuffle, SliceStep, SliceEllipsisStep, SliceNegative,
    SliceHalf, Narrow, NoneEllipsis, Flip, FlipImage, Roll, RollFlat, PixelShuffle,
    PixelUnshuffle, OneHot, SelectTensorIndex, NarrowTensorStart, KVCacheStep,
    KVCacheSlidingWindow, BatchHalves, FlipBatch, RollBatch, MergeBatch, BeamExpand,
    ReverseByArange, GatherExpandedIndex, BatchRowsGather, IndexFill, IndexAddInt64, SliceScatter,
    SelectScatter, TensorSplit, BoolListIndex, ChannelShuffleModule, FlattenTranspose,
    Interleave, Im2Col, RotateHalf, MaskedSelect]})


# ---------------------------------------------------------------------------------------------
# Export and reference runs


def example(name: str, module: nn.Module, b: int) -> dict[str, np.ndarray]:
    """The module's inputs for batch b: the same for every export of the module."""
    g = np.random.default_rng([zlib.crc32(name.encode()), b])
    return module.example(b, g)


def first_line(e: BaseException) -> str:
    """The error's first line (torch.export's own, when the dynamo exporter wraps it)."""
    if type(e).__name__ == "TorchExportError" and e.__cause__ is not None:
        return f"{type(e).__name__}: " + first_line(e.__cause__)
    text = re.sub(r"\x1b\[[0-9;]*m", "", f"{type(e).__name__}: {e}").strip()  # no colours
    return text.splitlines()[0][:300] if text else type(e).__name__


def bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(f"uint{8 * a.dtype.itemsize}") if a.dtype != np.bool_ else a.view(np.uint8)


def same_bits(a: np.ndarray, e: np.ndarray) -> bool:
    return a.dtype == e.dtype and a.shape == e.shape and np.array_equal(bits(a), bits(e))


def eager(make: Callable[[], nn.Module], inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    """torch's own outputs (a fresh module, copies of the inputs: some modules write them)."""
    with torch.no_grad():
        out = make().eval()(*(torch.from_numpy(a.copy()) for a in inputs.values()))
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [t.detach().numpy().copy() for t in outs]


@contextlib.contextmanager
def quiet():
    """The exporters' progress lines, warnings and C++ graph dumps, kept out of the way."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with tempfile.TemporaryFile() as sink, warnings.catch_warnings(), \
            contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)


def strip_stack_traces(path: pathlib.Path) -> None:
    """Drop the dynamo exporter's per-node stack traces (this file's line numbers and the
    venv's paths: they would change every file at each edit of this one); the rest of the
    node metadata stays."""
    import onnx
    model = onnx.load(str(path))
    for node in model.graph.node:
        keep = [(p.key, p.value) for p in node.metadata_props
                if p.key != "pkg.torch.onnx.stack_trace"]
        del node.metadata_props[:]
        for key, value in keep:
            node.metadata_props.add(key=key, value=value)
    onnx.save(model, str(path))


def export(name: str, make: Callable[[], nn.Module], exporter: str, opset: int, dynamic: bool,
           path: pathlib.Path) -> None:
    module = make().eval()
    inputs = example(name, module, EXPORT_BATCH)
    args = tuple(torch.from_numpy(a.copy()) for a in inputs.values())
    names = list(inputs)
    n_out = len(eager(make, inputs))
    if exporter == "torchscript":
        axes = {n: {ax: "batch"} for n, ax in module.batch.items()} if dynamic else None
        out_names = ["out"] if n_out == 1 else [f"out{k}" for k in range(n_out)]
        torch.onnx.export(module, args, str(path), dynamo=False, opset_version=opset,
                          input_names=names, output_names=out_names, dynamic_axes=axes)
    else:
        batch = torch.export.Dim("batch", min=1, max=64)
        shapes = tuple({module.batch[n]: batch} if n in module.batch else None
                       for n in names) if dynamic else None
        torch.onnx.export(module, args, str(path), dynamo=True, opset_version=opset,
                          dynamic_shapes=shapes, external_data=False, verbose=False)
        strip_stack_traces(path)
    if dynamic:
        import onnx
        graph_inputs = {i.name: i for i in onnx.load(str(path)).graph.input}
        for n, ax in module.batch.items():
            dim = graph_inputs[n].type.tensor_type.shape.dim[ax]
            if dim.HasField("dim_value"):
                raise ValueError(f"the batch dimension came out static: input {n!r} dimension "
                                 f"{ax} is {dim.dim_value}")


def references(name: str, make: Callable[[], nn.Module], path: pathlib.Path,
               batches: tuple[int, ...]) -> tuple[dict, dict]:
    """onnxruntime's outputs on the exported file for each batch, its graph optimizations off
    (ReverseByArange's dynamic TorchScript exports give an empty Range with them on), or on
    where it fails without them (the static TorchScript ScatterReduce exports declare an output
    shape of their untaken If branch): the .npz arrays and the manifest's notes (the inputs and
    outputs by name, torch's agreement, failures, the batches where the optimized session
    differs or only it runs)."""
    import onnx
    import onnxruntime as ort

    model = onnx.load(str(path))
    consts = {t.name for t in model.graph.initializer}
    in_names = [i.name for i in model.graph.input if i.name not in consts]
    out_names = [o.name for o in model.graph.output]
    sessions = []
    for level in (ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
                  ort.GraphOptimizationLevel.ORT_ENABLE_ALL):
        options = ort.SessionOptions()
        options.log_severity_level = 3
        options.graph_optimization_level = level
        sessions.append(ort.InferenceSession(str(path), options,
                                             providers=["CPUExecutionProvider"]))
    arrays: dict[str, np.ndarray] = {}
    notes: dict = {"inputs": in_names, "outputs": out_names, "batches": [],
                   "ort_equals_torch": {}, "ort_failed": {}, "ort_optimized_differs": [],
                   "ort_unoptimized_failed": {}}
    for b in batches:
        inputs = example(name, make(), b)
        unknown = [n for n in in_names if n not in inputs]
        if unknown:
            raise ValueError(f"exported inputs {in_names}, not the module's {list(inputs)}")
        feeds = {n: inputs[n] for n in in_names}
        try:
            got = sessions[0].run(out_names, feeds)
        except Exception as e:  # a file exported for one batch only, say
            try:  # or a declared shape that the optimizer's folding never checks
                got = sessions[1].run(out_names, feeds)
                notes["ort_unoptimized_failed"][str(b)] = first_line(e)
            except Exception:
                notes["ort_failed"][str(b)] = first_line(e)
                continue
        try:
            optimized = sessions[1].run(out_names, feeds)
            if not all(same_bits(np.asarray(a), np.asarray(o)) for a, o in zip(got, optimized)):
                notes["ort_optimized_differs"].append(b)
        except Exception:
            notes["ort_optimized_differs"].append(b)
        want = eager(make, inputs)
        agree = len(got) == len(want) and all(same_bits(np.asarray(a), w)
                                              for a, w in zip(got, want))
        notes["batches"].append(b)
        notes["ort_equals_torch"][str(b)] = agree
        for n in in_names:
            arrays[f"b{b}/in/{n}"] = feeds[n]
        for n, a in zip(out_names, got):
            arrays[f"b{b}/out/{n}"] = np.asarray(a)
    for key in ("ort_failed", "ort_optimized_differs", "ort_unoptimized_failed"):
        if not notes[key]:
            del notes[key]
    return arrays, notes


def save_npz(path: pathlib.Path, arrays: dict[str, np.ndarray]) -> None:
    """np.savez_compressed, but the same bytes on every run (no time stamps)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, a in arrays.items():
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            with zf.open(info, "w") as f:
                np.lib.format.write_array(f, np.asanyarray(a), allow_pickle=False)


def export_module(name: str, make: Callable[[], nn.Module]) -> tuple[list[dict], list[dict]]:
    models, refused = [], []
    for tag, exporter, opset in EXPORTS:
        for dynamic in (False, True):
            stem = f"{name}__{tag}_{'dyn' if dynamic else 'static'}"
            entry = {"name": stem, "module": name, "exporter": exporter, "opset": opset,
                     "batch": "dynamic" if dynamic else "static"}
            path = OUT / f"{stem}.onnx"
            batches = DYNAMIC_BATCHES if dynamic else (EXPORT_BATCH,)
            try:
                torch.manual_seed(0)
                with quiet():
                    export(name, make, exporter, opset, dynamic, path)
            except Exception as e:
                path.unlink(missing_ok=True)
                refused.append({**entry, "by": exporter, "error": first_line(e)})
                print(f"  {stem}: refused by the exporter: {first_line(e)}")
                continue
            try:
                with quiet():
                    arrays, notes = references(name, make, path, batches)
                if not notes["batches"]:
                    raise RuntimeError(next(iter(notes["ort_failed"].values())))
            except Exception as e:
                path.unlink(missing_ok=True)
                refused.append({**entry, "by": "onnxruntime", "error": first_line(e)})
                print(f"  {stem}: onnxruntime cannot run it: {first_line(e)}")
                continue
            save_npz(OUT / f"{stem}.npz", arrays)
            models.append({**entry, "file": path.name, **notes})
            flags = [f"ort!=torch at {b}" for b, ok in notes["ort_equals_torch"].items() if not ok]
            for key, what in (("ort_failed", "ort failed"),
                              ("ort_optimized_differs", "optimized ort differs"),
                              ("ort_unoptimized_failed", "only optimized ort runs")):
                flags += [f"{what} at {b}" for b in notes.get(key, ())]
            print(f"  {stem}: batches {notes['batches']} {' '.join(flags)}")
    return models, refused


def main(argv: list[str]) -> int:
    import onnx
    import onnxruntime

    wanted = argv or list(MODULES)
    unknown = [n for n in wanted if n not in MODULES]
    if unknown:
        print(f"no such module: {', '.join(unknown)}; the modules: {', '.join(MODULES)}")
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
    manifest_path = OUT / "manifest.json"
    old = json.loads(manifest_path.read_text()) if argv and manifest_path.exists() else {}
    models = [m for m in old.get("models", []) if m["module"] not in wanted]
    refused = [r for r in old.get("refused", []) if r["module"] not in wanted]
    for f in OUT.iterdir():
        if f.suffix in (".onnx", ".npz") and f.name.split("__")[0] in wanted:
            f.unlink()
    for name in wanted:
        print(name, flush=True)
        m, r = export_module(name, MODULES[name])
        models += m
        refused += r
    order = {n: k for k, n in enumerate(MODULES)}

    def key(entry: dict) -> tuple[int, str]:
        return order[entry["module"]], entry["name"]

    manifest = {
        "about": "tools/export_models.py: data-movement modules through torch.onnx.export "
                 "(TorchScript at opsets 20 and 11, dynamo at 20; static and dynamic batch); "
                 "each model's .npz holds bB/in/NAME and bB/out/NAME (onnxruntime's outputs)",
        "versions": {"torch": torch.__version__, "onnx": onnx.__version__,
                     "onnxruntime": onnxruntime.__version__},
        "modules": list(MODULES),
        "models": sorted(models, key=key),
        "refused": sorted(refused, key=key),
    }
    parts = []  # one line per model
    for field, val in manifest.items():
        if isinstance(val, list) and val and isinstance(val[0], dict):
            rows = ",\n  ".join(json.dumps(e) for e in val)
            parts.append(f" {json.dumps(field)}: [\n  {rows}\n ]")
        else:
            parts.append(f" {json.dumps(field)}: {json.dumps(val)}")
    manifest_path.write_text("{\n" + ",\n".join(parts) + "\n}\n")
    print(f"{len(manifest['models'])} models, {len(manifest['refused'])} refused")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Exception:
        traceback.print_exc()
        sys.exit(1)
