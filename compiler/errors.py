"""The dmlc exception hierarchy: every failure a user can cause is a DmlcError."""
from __future__ import annotations


class DmlcError(Exception):
    """Base class of every error dmlc raises on purpose."""


class ValidationError(DmlcError, ValueError):
    """A descriptor or an argument breaks a rule of its DirectML operator page (or of
    docs/decisions.md, where the page leaves a choice open).

    The message names the operator, the field, and the expected versus the actual value.
    """

    def __init__(self, operator: str, field: str, expected: object, actual: object,
                 detail: str = "") -> None:
        self.operator, self.field, self.expected, self.actual = operator, field, expected, actual
        msg = f"{operator}: {field}: expected {expected}, got {actual}"
        super().__init__(msg + (f" ({detail})" if detail else ""))


class IndexOutOfRangeError(DmlcError, IndexError):
    """check_indices=True found an index outside the valid range of its axis."""

    def __init__(self, operator: str, field: str, position: tuple[int, ...], value: int,
                 valid: tuple[int, int]) -> None:
        self.operator, self.field, self.position, self.value, self.valid = (
            operator, field, position, value, valid)
        lo, hi = valid
        super().__init__(f"{operator}: {field}{list(position)} = {value} is out of range: "
                         f"expected a value in [{lo}, {hi}]")


class ShaderCompileError(DmlcError):
    """glslangValidator or spirv-val rejected a generated shader (a dmlc bug: please report)."""


class DeviceError(DmlcError):
    """No usable Vulkan device, a device limit exceeded, or a failure inside the runtime."""


class ParseError(DmlcError, SyntaxError):
    """A .dml source does not parse, or names something it may not: the message starts with
    FILE:LINE:COLUMN, shows the line with a caret under the offending text, and says what was
    expected there."""

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
    """The command line asks for something impossible (the CLI's exit code 2)."""
