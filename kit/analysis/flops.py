"""Training compute as TLM counts it: FLOPs = 6 x training tokens x parameters.

(2 per parameter per token forward, 4 backward; attention's sequence-length term left out, as in the paper.)

>>> training_flops(tokens=1e9, params=110e6)
6.6e+17
>>> format_flops(6.6e17)
'6.6e17'
"""

from __future__ import annotations

import math


def training_flops(tokens: float, params: float) -> float:
    """6 · tokens · params (:func:`training_tokens`); ValueError if either is negative."""
    if tokens < 0 or params < 0:
        raise ValueError(f"tokens and params must be >= 0, got tokens={tokens}, params={params}.")
    return 6.0 * float(tokens) * float(params)


def training_tokens(steps: int, batch_size: int, sequence_length: int) -> int:
    """Tokens processed by ``steps`` optimizer steps of ``batch_size`` sequences of ``sequence_length``."""
    return int(steps) * int(batch_size) * int(sequence_length)


def format_flops(flops: float) -> str:
    """Scientific notation the paper uses, one decimal: ``'2.0e19'``; ``"0"`` for 0 or less."""
    if flops <= 0:
        return "0"
    exp = int(math.floor(math.log10(flops)))
    return f"{flops / 10**exp:.1f}e{exp}"
