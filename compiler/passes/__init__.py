"""Passes over IR programs and the pipeline that runs them."""
from .pipeline import PIPELINE, run_pipeline

__all__ = ["PIPELINE", "run_pipeline"]
