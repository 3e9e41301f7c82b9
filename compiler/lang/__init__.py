"""dmlc's textual language (.dml files): DirectML notation and tensor expressions, parsed with lark.

    module = dmlc.lang.load("gather.dml")      # or parse_module(text): units, data, locations
    outputs = dmlc.run_module(module)           # {name: numpy array} (dmlc.program)

The front end stops at descriptors: it imports nothing that compiles or runs.

Examples
--------
>>> module = dmlc.lang.parse_module("X: float32[3] = [1, 2, 3]\\nY[i] = X[2 - i]")
>>> [unit.name for unit in module.units]
['Y']
>>> print(dmlc.run_module(module)["Y"])
[3. 2. 1.]
"""
from .module import Module, load, parse_module
from .unit import Unit

__all__ = ["Module", "Unit", "load", "parse_module"]
