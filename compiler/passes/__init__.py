"""Passes over IR programs and the pipeline that runs them."""
from . import unroll, vector_select, vectorize
from .pipeline import PIPELINE, run_pipeline

__all__ = ["PIPELINE", "run_pipeline", "clear_memos"]


def clear_memos() -> None:
    """Forget the kernels the planner's candidates built (a pass builds its plan's winner again
    from these memos), and the addresses vector selects narrowed."""
    unroll.clear_memo()
    vectorize.clear_memo()
    vector_select.clear_memo()
