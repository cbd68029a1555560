"""Analysis tools: constant guess, timing, FLOPs, attention heads, spread, verdicts, this run beside medium."""

from ..metrics.tagging_scores import entity_f1, entity_scores, get_entities, token_accuracy
from . import pictures  # noqa: F401 - kit.analysis.pictures.draw_...: the notebooks' pictures
from .attention import (
    AttentionTrace,
    attention_maps,
    classify_heads,
    draw_attention,
    head_statistics,
    special_token_ids,
    trace_attention,
)
from .baselines import constant_guess, majority_label, record_constant_guesses
from .bootstrap import Bootstrap, paired_bootstrap
from .flops import format_flops, training_flops, training_tokens
from .scales import medium_results, plot_scales, scale_table
from .spread import Difference, difference, format_mean_se, paired_difference, summarize, welch
from .timing import time_inference
from .verdict_views import reach, read_aloud, show_verdicts, verdict_html, verdict_text
from .verdicts import Comparison, compare_arms, detectable_at, holm, verdict, verdict_table

__all__ = [
    "constant_guess",
    "majority_label",
    "record_constant_guesses",
    "entity_f1",
    "entity_scores",
    "get_entities",
    "token_accuracy",
    "Bootstrap",
    "paired_bootstrap",
    "Difference",
    "difference",
    "paired_difference",
    "welch",
    "Comparison",
    "compare_arms",
    "holm",
    "show_verdicts",
    "verdict",
    "verdict_html",
    "verdict_table",
    "detectable_at",
    "read_aloud",
    "reach",
    "verdict_text",
    "format_mean_se",
    "summarize",
    "medium_results",
    "plot_scales",
    "scale_table",
    "attention_maps",
    "AttentionTrace",
    "trace_attention",
    "draw_attention",
    "classify_heads",
    "format_flops",
    "head_statistics",
    "special_token_ids",
    "time_inference",
    "training_flops",
    "training_tokens",
]
