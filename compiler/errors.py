"""The dmlc exception hierarchy: every failure a user can cause is a DmlcError."""
from __future__ import annotations


class DmlcError(Exception):
    """Base class of every error dmlc raises on purpose.

    Examples
    --------
    >>> try:
    ...     dmlc.tile(np.zeros(2, np.float32), -1)
    ... except dmlc.DmlcError as e:
    ...     print(type(e).__name__)
    ValidationError
    """


class ValidationError(DmlcError, ValueError):
    """A descriptor or an argument breaks a rule of its DirectML operator page (or of
    docs/decisions.md, where the page leaves a choice open).

    The message names the operator, the field, and the expected versus the actual value.

    Parameters
    ----------
    operator : str
        The operator ("DML_SLICE1").
    field : str
        The field that breaks the rule.
    expected, actual : object
        What the rule asks for, and what was given.
    detail : str, optional
        More of the message.

    Examples
    --------
    >>> try:
    ...     dmlc.slice(np.zeros(4, np.float32), offsets=[1], sizes=[4], strides=[1])
    ... except dmlc.ValidationError as e:
    ...     print(e.operator, e.field)
    ...     print("expected", e.expected)
    ...     print("got", e.actual)
    DML_SLICE1 InputWindowSizes[0]
    expected offset + size <= InputTensor.Sizes[0] = 4
    got 1 + 4 = 5
    """

    def __init__(self, operator: str, field: str, expected: object, actual: object,
                 detail: str = "") -> None:
        self.operator, self.field, self.expected, self.actual = operator, field, expected, actual
        msg = f"{operator}: {field}: expected {expected}, got {actual}"
        super().__init__(msg + (f" ({detail})" if detail else ""))


class IndexOutOfRangeError(DmlcError, IndexError):
    """check_indices=True found an index outside the valid range of its axis.

    Parameters
    ----------
    operator : str
        The operator.
    field : str
        The tensor whose index is out of range.
    position : tuple of int
        The index's position in that tensor.
    value : int
        The index.
    valid : tuple of int
        The valid range, [low, high).

    Examples
    --------
    >>> try:
    ...     dmlc.take(np.zeros(3, np.float32), [0, 5])
    ... except IndexError as e:
    ...     print(isinstance(e, dmlc.IndexOutOfRangeError))
    True
    """

    def __init__(self, operator: str, field: str, position: tuple[int, ...], value: int,
                 valid: tuple[int, int]) -> None:
        self.operator, self.field, self.position, self.value, self.valid = (
            operator, field, position, value, valid)
        lo, hi = valid
        super().__init__(f"{operator}: {field}{list(position)} = {value} is out of range: "
                         f"expected a value in [{lo}, {hi}]")


class ShaderCompileError(DmlcError):
    """glslangValidator or spirv-val rejected a generated shader (a dmlc bug: please report).

    Examples
    --------
    >>> issubclass(dmlc.ShaderCompileError, dmlc.DmlcError)
    True
    """


class DeviceError(DmlcError):
    """No usable Vulkan device, a device limit exceeded, or a failure inside the runtime.

    Examples
    --------
    >>> try:
    ...     dmlc.set_device(-1)
    ... except dmlc.DeviceError as e:
    ...     print(e)
    set_device() must be a device index >= 0, got -1
    """


class ParseError(DmlcError, SyntaxError):
    """A .dml source does not parse, or names something it may not: the message starts with
    FILE:LINE:COLUMN, shows the line with a caret under the offending text, and says what was
    expected there.

    Parameters
    ----------
    message : str
        What was expected.
    filename : str, default "<input>"
        The source's file.
    line, column : int
        Where (1-based; 0 when unknown).
    source_line : str
        The line's text.

    Examples
    --------
    >>> try:
    ...     dmlc.lang.parse_module("Y[i] = ")
    ... except dmlc.ParseError as e:
    ...     print(str(e).splitlines()[0])
    <input>:1:7: unexpected end of file; expected 'where' or a name
    """

    def __init__(self, message: str, *, filename: str = "<input>", line: int = 0, column: int = 0,
                 source_line: str = "") -> None:
        self.filename, self.line, self.column = filename, line, column
        self.source_line = source_line
        text = f"{filename}:{line}:{column}: {message}" if line else f"{filename}: {message}"
        if source_line:
            text += f"\n    {source_line}\n    {' ' * (max(column, 1) - 1)}^"
        DmlcError.__init__(self, text)
        self.msg = message

    def __str__(self) -> str:
        return str(self.args[0])


class UsageError(DmlcError):
    """The command line asks for something impossible (the CLI's exit code 2).

    Examples
    --------
    >>> issubclass(dmlc.UsageError, dmlc.DmlcError)
    True
    """
