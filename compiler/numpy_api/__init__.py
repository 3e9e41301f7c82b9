"""numpy's take, take_along_axis and put_along_axis, with numpy's exact semantics, on the
DirectML operators (functions.py; its argument handling in args.py)."""
from .functions import put_along_axis, take, take_along_axis

__all__ = ["put_along_axis", "take", "take_along_axis"]
