"""The operator families, one folder each (a vertical slice): `desc.py` (the descriptors,
DirectML's fields), `validate.py`, `lower.py` (to IR) and `api.py` (the one-shot functions),
and `__init__.py`, which registers the family (dmlc.family.registry). A family imports no other
family; `dmlc/__init__.py` imports each one, once."""
