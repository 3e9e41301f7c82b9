"""Random cases for tile, padding and space/depth (see tests/cases.py)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import dmlc
import reference_layout as ref
from dmlc.ops.pad.desc import PADDING_MODES
from dmlc.ops.space_depth.desc import DEPTH_SPACE_ORDERS
from strategies import DATA_TYPES, random_bits, shapes

seeds = st.integers(0, 2**32 - 1)


def _tensor(a: np.ndarray) -> dmlc.TensorDesc:
    return dmlc.TensorDesc(data_type=a.dtype.name, sizes=a.shape)


@st.composite
def tile_cases(draw, dtypes=DATA_TYPES):
    from cases import Case
    shape = draw(shapes(max_elements=24))
    repeats = draw(st.lists(st.integers(1, 3), min_size=len(shape), max_size=len(shape)))
    x = random_bits(draw(seeds), shape, draw(st.sampled_from(dtypes)))
    desc = dmlc.TileDesc(input=_tensor(x), repeats=tuple(repeats))
    return Case(dmlc.tile, (x,), {"repeats": repeats}, desc, ref.tile(x, repeats))


def _fill(draw, dtype: np.dtype) -> tuple[int | float, int]:
    """A padding value and its bits: integers across the type's whole range, floats with
    -0.0, infinities and NaN."""
    if dtype.kind == "f":
        v = draw(st.sampled_from([0.0, -0.0, 1.5, -2.25, float("inf"), float("nan"), 1e-3]))
        return v, int(np.array(v, dtype).view(np.dtype(f"uint{8 * dtype.itemsize}")))
    info = np.iinfo(dtype)
    v = draw(st.integers(int(info.min), int(info.max)))
    return v, v & ((1 << (8 * dtype.itemsize)) - 1)


@st.composite
def padding_cases(draw, dtypes=DATA_TYPES):
    from cases import Case
    shape = draw(shapes(max_elements=24))
    mode = draw(st.sampled_from(PADDING_MODES))
    room = {"DML_PADDING_MODE_REFLECTION": -1, "DML_PADDING_MODE_SYMMETRIC": 0,
            "DML_PADDING_MODE_WRAP": 0}.get(mode)
    widths = [(draw(st.integers(0, 3 if room is None else n + room)),
               draw(st.integers(0, 3 if room is None else n + room))) for n in shape]
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    value, bits = _fill(draw, dtype)
    x = random_bits(draw(seeds), shape, dtype)
    start, end = [w[0] for w in widths], [w[1] for w in widths]
    desc = dmlc.PaddingDesc(input=_tensor(x), mode=mode, start_padding=tuple(start),
                            end_padding=tuple(end), value=value)
    mode_name = ref.NP_MODES[mode]
    return Case(dmlc.pad, (x,), {"start": start, "end": end, "mode": mode_name,
                                 "value": value}, desc, ref.pad(x, start, end, mode, bits))


@st.composite
def depth_space_cases(draw, dtypes=DATA_TYPES):
    from cases import Case
    b = draw(st.integers(1, 3))
    to_depth = draw(st.booleans())
    order = draw(st.sampled_from(DEPTH_SPACE_ORDERS))
    dcr = order == DEPTH_SPACE_ORDERS[0]
    n, c = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    h, w = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    shape = (n, c, h * b, w * b) if to_depth else (n, c * b * b, h, w)
    x = random_bits(draw(seeds), shape, draw(st.sampled_from(dtypes)))
    cls = dmlc.SpaceToDepthDesc if to_depth else dmlc.DepthToSpaceDesc
    fn = dmlc.space_to_depth if to_depth else dmlc.depth_to_space
    expected = (ref.space_to_depth if to_depth else ref.depth_to_space)(x, b, dcr)
    return Case(fn, (x,), {"block": b, "order": "DCR" if dcr else "CRD"},
                cls(input=_tensor(x), block_size=b, order=order), expected)
