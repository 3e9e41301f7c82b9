"""dmlc's own operator: a tensor expression."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...errors import ValidationError
from ...family.tensor import TensorDesc, as_tuple, hash_once
from .tree import MAX_NESTING, Value, nesting_depth


@hash_once
@dataclass(frozen=True, kw_only=True)
class ExpressionDesc:
    """A tensor expression, dmlc's own operator: output[index_vars] = body, one read per element.

    `body` is a Load from one of `tensors`, its subscripts affine in the index variables and in
    values loaded from index tensors, or integer arithmetic on such values (see dmlc.expr), or
    a Select (where) choosing per element between such reads and constants. Operators compose
    into one expression, which is how dmlc fuses them: `W[i, j] = X[I[i // 2, j], 2 - j]`
    reads X once per element.

    Parameters
    ----------
    name : str
        The output's name.
    index_vars : tuple of str
        The output's index variables, one per dimension.
    body : Value
        The value of output[index_vars] (a tree of dmlc.expr's nodes).
    tensors : tuple of (str, TensorDesc)
        The tensors the body reads, by name.
    output : TensorDesc, optional
        OutputTensor (inferred when None).

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> from dmlc.expr import Add, Const, Load, Mul, Var
    >>> desc = dmlc.expr.ExpressionDesc(
    ...     name="Y", index_vars=("i",), body=Load("X", (Add(Const(3), Mul(Var("i"), -1)),)),
    ...     tensors=(("X", dmlc.TensorDesc(data_type="FLOAT32", sizes=(4,))),))
    >>> print(dmlc.compile(desc)(np.array([1., 2., 3., 4.], np.float32)))
    [4. 3. 2. 1.]
    """

    name: str
    """The output tensor's name (also its buffer's)."""
    index_vars: tuple[str, ...]
    """The output's index variables, outermost first: i, j in W[i, j]."""
    body: Value
    """What each output element reads: a Load, or a Select between reads and Literals."""
    tensors: tuple[tuple[str, TensorDesc], ...]
    """(name, tensor) of every input the body may read, in argument order."""
    output: TensorDesc | None = None
    """The output tensor. None: inferred (packed; sizes from the subscripts, the body's type)."""

    operator = "expression"
    has_indices: ClassVar[bool] = False
    """Index tensors are ordinary inputs of an expression: checked mode does not apply."""
    dml_fields: ClassVar[dict[str, str | None]] = {}

    def __post_init__(self) -> None:
        depth = nesting_depth(self.body)
        if depth > MAX_NESTING:
            raise ValidationError("expression", "body", f"at most {MAX_NESTING} levels of "
                                  "nesting", f"more than {MAX_NESTING}")
        object.__setattr__(self, "index_vars", as_tuple("expression", "indices", self.index_vars))
        object.__setattr__(self, "tensors", as_tuple("expression", "tensors", self.tensors))

    def tensor(self, name: str) -> TensorDesc:
        return dict(self.tensors)[name]

    def argument(self, name: str) -> tuple[TensorDesc, str]:
        """The tensor behind program input `name` (a tensor the body reads), as errors name it."""
        return self.tensor(name), name
