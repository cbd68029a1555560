"""Analysis tools: inference timing, training FLOPs (attention analysis arrives with notebook 02)."""

from .flops import format_flops, training_flops, training_tokens
from .timing import time_inference

__all__ = ["format_flops", "time_inference", "training_flops", "training_tokens"]
