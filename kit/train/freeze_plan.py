"""The freeze scheduler's phase plan: which encoder groups stay frozen, at what rate, for how long (arXiv 1907.05338).

Pure bookkeeping: :func:`kit.train.stack_and_finetune` runs each phase as one ``fit`` (freeze the lowest
``frozen_groups`` groups, recompile with a fresh optimizer).

>>> [(p.name, p.frozen_groups, p.epochs) for p in phase_plan("stack_and_finetune", 3, unfreeze="gradual",
...                                                           phase1_epochs=2, phase2_epochs=4)]
[('phase1', 3, 2), ('phase2.1', 2, 1), ('phase2.2', 1, 1), ('phase2.3', 0, 2)]
"""

from __future__ import annotations

import difflib
from typing import NamedTuple

STRATEGIES = ("finetune_only", "stack_only", "stack_and_finetune")
UNFREEZE = ("all", "gradual")


class Phase(NamedTuple):
    """One phase of the plan: one recompile and one ``fit``.

    Attributes:
        name: ``"phase1"``, ``"phase2"``, or ``"phase2.k"`` for gradual unfreezing's steps.
        frozen_groups: encoder groups, counted from the bottom, that stay frozen (0: all trainable).
        learning_rate: ``phase1_lr`` in phase 1, ``phase2_lr`` from phase 2 on.
        stops_on_divergence: whether the paper's phase-1 rule (:class:`kit.train.DivergenceStopping`) watches it.
        final: whether it belongs to the last stage, which keeps its best dev epoch (and may stop on ``patience``).
    """

    name: str
    frozen_groups: int
    learning_rate: float
    epochs: int
    stops_on_divergence: bool = False
    final: bool = False


def check_plan(strategy: str, unfreeze: str = "all", phase1_epochs: int = 0, phase2_epochs: int = 0) -> None:
    """Check for a known strategy and unfreeze mode, and >= 1 epoch for every stage the strategy trains.

    Raises:
        ValueError: an unknown strategy (with the closest name as a hint) or unfreeze mode, or a stage with < 1 epoch.

    Example:
        >>> check_plan("stack-and-finetune")
        Traceback (most recent call last):
        ...
        ValueError: Unknown strategy 'stack-and-finetune': use one of (...). Did you mean 'stack_and_finetune'?
    """
    if strategy not in STRATEGIES:
        close = difflib.get_close_matches(str(strategy), STRATEGIES, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ValueError(f"Unknown strategy {strategy!r}: use one of {STRATEGIES}.{hint}")
    if unfreeze not in UNFREEZE:
        raise ValueError(f"unfreeze must be one of {UNFREEZE}; got {unfreeze!r}.")
    if strategy in ("stack_only", "stack_and_finetune") and phase1_epochs < 1:
        raise ValueError(f"strategy {strategy!r} trains a frozen phase: give phase1_epochs >= 1.")
    if strategy in ("finetune_only", "stack_and_finetune") and phase2_epochs < 1:
        raise ValueError(f"strategy {strategy!r} trains an unfrozen phase: give phase2_epochs >= 1.")


def phase_plan(
    strategy: str,
    n_groups: int,
    unfreeze: str = "all",
    phase1_lr: float = 1e-3,
    phase2_lr: float = 2e-5,
    phase1_epochs: int = 0,
    phase2_epochs: int = 0,
) -> list[Phase]:
    """The phases ``strategy`` trains, in order, for ``n_groups`` encoder groups (bottom to top; last stage ``final``).

    ``finetune_only``: one phase, nothing frozen, ``phase2_lr``; ``stack_only``: one phase, all frozen, ``phase1_lr``;
    ``stack_and_finetune``: phase 1 as stack-only (stops on divergence), then phase 2 as finetune-only.
    ``unfreeze="gradual"`` (ULMFiT, more than one group) makes phase 2 ``n_groups - 1`` one-epoch steps ``phase2.1`` ...
    (one more group unfrozen each, from the top), then ``phase2.<n_groups>`` all trainable for
    ``max(1, phase2_epochs - (n_groups - 1))`` epochs.

    Raises:
        ValueError: the arguments fail :func:`check_plan`.

    Example:
        >>> phase_plan("finetune_only", 2, phase2_lr=2e-5, phase2_epochs=3)
        [Phase(name='phase1', frozen_groups=0, learning_rate=2e-05, epochs=3, stops_on_divergence=False, final=True)]
        >>> [(p.name, p.frozen_groups, p.stops_on_divergence, p.final)
        ...  for p in phase_plan("stack_and_finetune", 2, phase1_epochs=1, phase2_epochs=1)]
        [('phase1', 2, True, False), ('phase2', 0, False, True)]
    """
    check_plan(strategy, unfreeze, phase1_epochs, phase2_epochs)
    n = n_groups
    if strategy == "finetune_only":
        return [Phase("phase1", 0, phase2_lr, phase2_epochs, final=True)]
    if strategy == "stack_only":
        return [Phase("phase1", n, phase1_lr, phase1_epochs, final=True)]
    plan = [Phase("phase1", n, phase1_lr, phase1_epochs, stops_on_divergence=True)]
    if unfreeze == "gradual" and n > 1:
        for k in range(1, n):  # unfreeze groups from the top: n-1 frozen, then n-2, ...
            plan.append(Phase(f"phase2.{k}", n - k, phase2_lr, 1, final=True))
        plan.append(Phase(f"phase2.{n}", 0, phase2_lr, max(1, phase2_epochs - (n - 1)), final=True))
    else:
        plan.append(Phase("phase2", 0, phase2_lr, phase2_epochs, final=True))
    return plan
