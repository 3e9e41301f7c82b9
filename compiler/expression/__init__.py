"""dmlc's tensor-expression operator in one place: the expression trees (tree.py), their range
facts (ranges.py), validation (validate.py) and lowering (lower.py). The front end
(lang/expressions.py) builds ExpressionDesc from `.dml` statements; Python code builds the trees
directly (`from dmlc.expression import tree as E`)."""
