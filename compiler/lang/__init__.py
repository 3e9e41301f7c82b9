"""dmlc's textual language (.dml files): DirectML notation and tensor expressions, parsed with lark.

    module = dmlc.lang.load("gather.dml")      # or parse_module(text): units, data, locations
    outputs = dmlc.run_module(module)           # {name: numpy array} (dmlc.program)

The front end stops at descriptors: it imports nothing that compiles or runs.
"""
from .module import Module, load, parse_module
from .unit import Unit

__all__ = ["Module", "Unit", "load", "parse_module"]
