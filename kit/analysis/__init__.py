"""Analysis tools: timing (and later FLOPs, attention)."""

from .timing import time_inference

__all__ = ["time_inference"]
