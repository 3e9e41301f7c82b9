"""dmlc's textual language (.dml files): DirectML notation and tensor expressions, parsed with lark.

    module = dmlc.lang.load("gather.dml")      # or parse_module(text)
    outputs = module.run()                      # {name: numpy array}
"""
from .module import Module, load, parse_module
from .unit import Unit

__all__ = ["Module", "Unit", "load", "parse_module"]
