"""DirectML notation -> an operator descriptor, its data and its documented output.

    DML_GATHER_OPERATOR_DESC            (or `gather`; without a name the fields decide)
    Axis: 0
    IndexDimensions: 1
    InputTensor: (Sizes:{4}, DataType:FLOAT32)  [11,12,13,14]
    IndicesTensor: (Sizes:{5}, DataType:UINT32) [3,1,3,0,2]
    OutputTensor: (Sizes:{5}, DataType:FLOAT32) [14,12,14,11,13]

Data after OutputTensor is the expected result, as on DirectML's pages.
"""
from __future__ import annotations

import dataclasses
import difflib
from typing import Any

import numpy as np

from ..dtypes import DataType
from ..errors import ValidationError
from ..family.checks import check_tensor
from ..family.literal import exact_number
from ..family.registry import OperatorDesc, descriptor_classes
from ..family.tensor import TensorDesc, list_argument
from .data import Source, array_data, buffer_for, written_data
from .parser import FieldItem, Loc, Name, Number, OperatorItem, TensorSyntax
from .symbols import Binding, is_symbolic, names, spell
from .unit import Unit


def operators() -> dict[str, tuple[type, dict[str, str | None]]]:
    """operator -> (descriptor class, its fields: DML name -> keyword or None for checked-only),
    for every registered family's DirectML descriptors."""
    return {cls.operator: (cls, cls.dml_fields)  # type: ignore[attr-defined]
            for cls in descriptor_classes(directml_only=True)}


ALIASES = {"GATHER": "DML_GATHER", "GATHER_ELEMENTS": "DML_GATHER_ELEMENTS",
           "SCATTER": "DML_SCATTER", "SCATTER_ELEMENTS": "DML_SCATTER",
           "DML_SCATTER_ELEMENTS": "DML_SCATTER", "SLICE": "DML_SLICE1", "SLICE1": "DML_SLICE1"}


def is_tensor_field(name: str) -> bool:
    """DirectML names every tensor field ...Tensor (InputTensor, SequenceLengthsTensor)."""
    return name.endswith("Tensor")


def is_output_field(name: str) -> bool:
    """...and every output Output... (OutputTensor, OutputGradientTensor)."""
    return name.startswith("Output")


def is_tensor_list_field(name: str) -> bool:
    """...and a list of them ...Tensors (InputTensors of DML_JOIN)."""
    return name.endswith("Tensors")


def argument_of(fields: dict[str, str | None]) -> dict[str, str]:
    """The tensor fields among `fields` that are program inputs, by the keyword naming them."""
    return {kw: f for f, kw in fields.items()
            if kw is not None and is_tensor_field(f) and not is_output_field(f)}


def operator_name(text: str) -> str | None:
    """DML_GATHER_OPERATOR_DESC, DML_GATHER, gather -> DML_GATHER (None if unknown)."""
    name = text.upper().removesuffix("_OPERATOR_DESC")
    name = ALIASES.get(name, name)
    return name if name in operators() else None


def _infer_operator(fields: dict[str, FieldItem], src: Source, loc: Loc) -> str:
    """Without an operator name: the operator that has every field given, and of those the one
    with the fewest fields (DML_PADDING before DML_PADDING1, DML_GATHER_ELEMENTS before
    DML_GATHER and DML_SCATTER). Operators with the same fields (space/depth) need their name."""
    given = set(fields)
    fits = sorted(((len(allowed), op) for op, (_, allowed) in operators().items()
                   if given <= set(allowed)))
    if not fits:
        raise src.error("no operator has all of the fields " + ", ".join(sorted(given))
                        + "; name it (DML_..._OPERATOR_DESC)", loc)
    tied = [op for n, op in fits if n == fits[0][0]]
    if len(tied) > 1:
        raise src.error("the fields fit " + " and ".join(tied) + " alike: name the operator "
                        "(DML_..._OPERATOR_DESC)", loc)
    return tied[0]


def _tensor(f: FieldItem, src: Source, op: str = "DML_BUFFER_TENSOR_DESC") -> TensorDesc:
    if not isinstance(f.value, TensorSyntax):
        raise src.error(f"{f.name}: expected a tensor such as (Sizes:{{2, 3}}, "
                        "DataType:FLOAT32)", f.loc)
    props: dict[str, tuple[Any, Loc]] = {}
    known = {"Sizes", "DataType", "Strides", "TotalTensorSizeInBytes", "DimensionCount"}
    for name, value, loc in f.value.props:
        if name not in known:
            raise src.error(f"{f.name}: unknown tensor property {name!r}; expected one of "
                            + ", ".join(sorted(known)) + _suggest(name, known), loc)
        props[name] = (value, loc)
    for need in ("Sizes", "DataType"):
        if need not in props:
            raise src.error(f"{f.name}: {need} is missing", f.value.loc)

    def ints(name: str, symbols: bool = False) -> tuple[Any, ...] | None:
        """A property's integers; Sizes may also name a dimension or leave it free (`?`)."""
        if name not in props:
            return None
        value, loc = props[name]
        if isinstance(value, Number):
            value = [value]
        if isinstance(value, list) and any(isinstance(n, Name) for n in value) and not symbols:
            raise src.error(f"{op}: {f.name}.{name}: expected integers (a name or ? is a "
                            f"symbolic size: only Sizes takes one), got {_spell(value)}", loc)
        if not isinstance(value, list) or not all(isinstance(n, Name) or (
                isinstance(n, Number) and n.is_int) for n in value):
            raise src.error(f"{f.name}.{name}: expected integers in braces, such as {{2, 3}}", loc)
        return tuple(n.size if isinstance(n, Name) else int(n.value()) for n in value)

    dtype_text, dtype_loc = props["DataType"]
    try:
        dtype = DataType.of(dtype_text if isinstance(dtype_text, str) else None)
    except ValueError:
        raise src.error(f"{f.name}.DataType: expected one of " + ", ".join(DataType.__members__)
                        + f", got {getattr(dtype_text, 'text', dtype_text)}", dtype_loc) from None
    sizes = ints("Sizes", symbols=True) or ()
    count = ints("DimensionCount")
    if count is not None and count != (len(sizes),):
        raise src.error(f"{f.name}.DimensionCount: expected {len(sizes)} (the number of Sizes), "
                        f"got {count[0]}", props["DimensionCount"][1])
    total = ints("TotalTensorSizeInBytes")
    if is_symbolic(sizes):
        for fixed in ("Strides", "TotalTensorSizeInBytes"):
            if fixed in props:
                raise src.error(f"{op}: {f.name}.{fixed}: expected none (a tensor of symbolic "
                                f"Sizes {spell(sizes)} is packed), got {_spell(props[fixed][0])}",
                                props[fixed][1])
    t = TensorDesc(data_type=dtype, sizes=sizes, strides=ints("Strides"),
                   total_bytes=total[0] if total else None)
    probe = dataclasses.replace(t, sizes=tuple(1 if s is None or isinstance(s, str) else s
                                               for s in sizes))
    try:  # before its data is laid out by these sizes and strides (buffer_for)
        check_tensor("DML_BUFFER_TENSOR_DESC", f.name, probe)
    except ValidationError as e:
        raise src.error(str(e), f.loc) from None
    return t


def _spell(value: Any) -> str:
    """Integers or sizes in braces as written: {0, A}."""
    if isinstance(value, list):
        return spell([n.size if isinstance(n, Name) else n.text for n in value])
    return getattr(value, "text", str(value))


def _suggest(name: str, options: Any) -> str:
    close = difflib.get_close_matches(name, list(options), n=1)
    return f" (did you mean {close[0]}?)" if close else ""


def build_unit(op_item: OperatorItem | None, fields: list[FieldItem], src: Source) -> Unit:
    op = operator_name(op_item.name) if op_item is not None else None
    if op_item is not None and op is None:
        names = sorted(operators()) + sorted(a.lower() for a in ALIASES)
        raise src.error(f"unknown operator {op_item.name!r}; expected one of "
                        + ", ".join(names), op_item.loc)
    by_name: dict[str, FieldItem] = {}
    for f in fields:
        if f.name in by_name:
            raise src.error(f"{f.name} is given twice (first on line {by_name[f.name].loc.line})",
                            f.loc)
        by_name[f.name] = f
    op = op or _infer_operator(by_name, src, fields[0].loc if fields else Loc(1, 1))
    cls, allowed = operators()[op]
    for f in fields:
        if f.name not in allowed:
            raise src.error(f"{op}: unknown field {f.name!r}; expected one of "
                            + ", ".join(allowed) + _suggest(f.name, allowed), f.loc)
    kwargs: dict[str, Any] = {}
    data: dict[str, np.ndarray] = {}
    arguments = argument_of(allowed)
    expected: Any = None
    shaped: list[tuple[str, TensorDesc, np.ndarray | None, bool, Loc]] = []
    for name, keyword in allowed.items():
        given = by_name.get(name)
        if given is None or keyword is None:
            continue
        f = given
        is_list = is_tensor_list_field(name)
        if is_tensor_field(name) or is_list:
            items = f.value if is_list else [f.value]
            if is_list and not isinstance(items, list):
                raise src.error(f"{name}: expected tensors in braces, such as {{(Sizes:{{2}}, "
                                "DataType:FLOAT32), (Sizes:{3}, DataType:FLOAT32)}", f.loc)
            labels = ([f"{name}[{k}]" for k in range(len(items))]
                      if is_list else [name])
            tensors, values = [], []
            for label, syntax in zip(labels, items):
                t = _tensor(FieldItem(label, syntax, f.loc), src, op)
                tensors.append(t)
                symbolic = is_symbolic(t.sizes)
                value = (None if syntax.data is None else
                         written_data(syntax.data, t.data_type, src, f"{label} data")
                         if symbolic else array_data(syntax.data, t, src, f"{label} data"))
                values.append(value)
                if symbolic:
                    shaped.append((label, t, value, is_output_field(name), f.loc))
                if not is_output_field(name) and value is not None:
                    arg = (list_argument(keyword, len(tensors) - 1)
                           if is_list else keyword)
                    data[arg] = value if symbolic else buffer_for(
                        value, t, src, f"{label} data", syntax.data.loc)
            if is_list:
                kwargs[keyword] = tuple(tensors)
                if not is_output_field(name):
                    arguments.update({list_argument(keyword, k): label
                                      for k, label in enumerate(labels)})
            else:
                kwargs[keyword] = tensors[0]
            if is_output_field(name) and any(v is not None for v in values):
                expected = tuple(values) if is_list else values[0]
        else:
            kwargs[keyword] = _field_value(f, src, op)
    bound = _bind(op, shaped, src)
    _check_counts(op, by_name, kwargs, allowed, src)
    required = {f.name for f in dataclasses.fields(cls)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    for name, keyword in allowed.items():
        if keyword not in kwargs and keyword in required:
            raise src.error(f"{op}: {name} is missing", op_item.loc if op_item else
                            (fields[0].loc if fields else None))
    desc: OperatorDesc = cls(**kwargs)
    locations = {f.name: f.loc for f in fields}
    if op_item:
        locations[op] = op_item.loc
    output = next(n for n in allowed if is_output_field(n)
                  and (is_tensor_field(n) or is_tensor_list_field(n)))
    return Unit(output, desc, arguments, data, expected, locations, bound)


def _bind(op: str, shaped: list[tuple[str, TensorDesc, np.ndarray | None, bool, Loc]],
          src: Source) -> dict[str, int]:
    """The symbolic sizes the file's data binds (inputs first, then the expected output),
    checked to agree; an output's name must be an input's (its size follows from them)."""
    binding = Binding(op)
    given = {n for _, t, _, out, _ in shaped if not out for n in names(t.sizes)}
    for label, t, value, out, loc in sorted(shaped, key=lambda x: x[3]):
        for k, n in enumerate(t.sizes):
            if out and isinstance(n, str) and n not in given:
                raise src.error(f"{op}: {label}.Sizes[{k}] ({n}): expected a name an input's "
                                "Sizes give (" + (", ".join(sorted(given)) or "none") + ") or ?, "
                                f"got {n}", loc)
        if value is not None:
            try:
                binding.bind(label, t.sizes, value.shape)
            except ValidationError as e:
                raise src.error(str(e), loc) from None
    return {n: size for n, (size, _) in binding.sizes.items()}


def _check_counts(op: str, by_name: dict[str, FieldItem], kwargs: dict[str, Any],
                  allowed: dict[str, str | None], src: Source) -> None:
    """InputCount and OutputCount, where given, must count their tensor list."""
    for name, f in by_name.items():
        listed = name.removesuffix("Count") + "Tensors"
        if name.endswith("Count") and listed in allowed:
            count = _field_value(f, src, op)
            got = len(kwargs.get(allowed[listed] or "", ()))
            if count != got:
                raise src.error(f"{op}: {name}: expected {got} (the tensors in {listed}), got "
                                f"{count}", f.loc)


def _field_value(f: FieldItem, src: Source, op: str) -> Any:
    """A field that is not a tensor: an integer (exact), a number (float), integers in braces,
    or a name (an enumeration's member, such as DML_PADDING_MODE_EDGE: the descriptor checks
    it). A symbolic size is refused: only a tensor's Sizes may vary."""
    v = f.value
    if isinstance(v, list) and any(isinstance(n, Name) for n in v):
        raise src.error(f"{op}: {f.name}: expected integers (a name or ? is a symbolic size: "
                        f"only a tensor's Sizes takes one, {f.name} is static), got "
                        f"{_spell(v)}", f.loc)
    if isinstance(v, Number):
        return int(v.value()) if v.is_int else exact_number(v.text)
    if isinstance(v, Name):
        return v.text
    if isinstance(v, list) and all(isinstance(n, Number) and n.is_int for n in v):
        return tuple(int(n.value()) for n in v)
    raise src.error(f"{f.name}: expected a number, a name or integers in braces", f.loc)
