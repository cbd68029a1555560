"""Notebook 03's exercises: the set-up their solutions share, so each solution shows only its experiment.

Every exercise trains on the classification task (BBC headlines at smoke and medium, Yahoo Answers at full):
:func:`classification_setup` loads the encoder, encodes the task, cuts the encoder to its depth, fixes the
embeddings the exercise keeps fixed and wraps it in a :class:`~kit.train.ReusableBackbone`; :class:`ExerciseSetup`
then gives each run its BERT-Adam, its phase-1 rule and its test accuracy.

>>> EMBEDDINGS
('token_embedding', 'position_embedding', 'segment_embedding', 'embeddings_layer_norm')
"""

from __future__ import annotations

from dataclasses import dataclass

from ... import config
from ...analysis.baselines import constant_guess
from ...models import load_backbone
from ...models.truncate import truncate_backbone
from ...train.freeze_helpers import ReusableBackbone, optimizer_factory
from . import stack_and_finetune_sizes as size_table
from . import stack_and_finetune_tasks as task_specs
from .stack_and_finetune_runs import TaskData, encode_tasks, score

#: The backbone's four embedding layers (not one group): ``fixed="all"`` keeps every one of them fixed.
EMBEDDINGS = ("token_embedding", "position_embedding", "segment_embedding", "embeddings_layer_norm")
#: At smoke the exercises use fewer and shorter texts than the notebook, so a run takes seconds on a CPU.
SMOKE_TASK = {"max_train": 64, "max_dev": 32, "sequence_length": 16}


@dataclass
class ExerciseSetup:
    """One exercise's task and encoder, and the recipe's pieces a run passes ``kit.train.stack_and_finetune``.

    Attributes:
        sizes: the scale's sizes (``stack_and_finetune_sizes.py``, with ``KIT_SIZES`` merged in).
        smoke: whether the scale is smoke (the solutions then train fewer epochs on one seed).
        name: the classification task's name.
        task: the encoded task.
        backbone: the encoder, cut to its depth (the layers the scheduler freezes and unfreezes).
        encoder: ``backbone`` as a :class:`ReusableBackbone`: ``encoder.fresh()`` before every run.
        guess: the constant guess's test accuracy (the training set's most frequent class).
        seeds: the seeds to run (one at smoke).
    """

    sizes: dict
    smoke: bool
    name: str
    task: TaskData
    backbone: object
    encoder: ReusableBackbone
    guess: float
    seeds: list

    def optimizer(self, strategy: str, phase1_epochs: int, phase2_epochs: int):
        """A fresh BERT-Adam per phase (``kit.train.optimizer_factory``) for a run of ``strategy``."""
        s = self.sizes
        steps = self.task.steps_per_epoch(s["batch_size"])
        return optimizer_factory(
            strategy, steps, phase1_epochs, phase2_epochs, s["schedule"], s["warmup"], s["weight_decay"]
        )

    def divergence(self) -> dict:
        """The notebook's phase-1 rule: ``{"threshold", "patience"}`` of ``kit.train.DivergenceStopping``."""
        return {"threshold": self.sizes["divergence_threshold"], "patience": self.sizes["divergence_patience"]}

    def test_accuracy(self, model) -> float:
        """``model``'s accuracy on the task's test split."""
        return score(self.task, model.predict(self.task.x["test"], verbose=0))["accuracy"]

    def header(self, what: str) -> str:
        """One line: the task, its sizes, ``what`` is trained, the seeds and the constant guess."""
        return f"{self.name}: {self.task.sizes()}, {what}, seeds {self.seeds}; constant guess {100 * self.guess:.1f}%"


def classification_setup(fixed: str = "word") -> ExerciseSetup:
    """Load, encode and cut what every exercise of notebook 03 trains on: the classification task.

    At smoke: 64 training texts of 16 tokens, the encoder's bottom 2 layers, one seed; otherwise the scale's task,
    ``sizes["encoder_layers"]`` layers and every seed.

    Args:
        fixed: which embedding layers stay fixed in every phase: ``"word"`` (the 11.7M-weight word-embedding
            table, at smoke only, for speed; medium and full train it), or ``"all"`` (the four layers of
            :data:`EMBEDDINGS`, at every scale).

    Returns:
        An :class:`ExerciseSetup`.

    Raises:
        ValueError: ``fixed`` is neither ``"word"`` nor ``"all"``.
    """
    if fixed not in ("word", "all"):
        raise ValueError(f"fixed must be 'word' or 'all', not {fixed!r}")
    sizes = config.paper_sizes("stack_and_finetune", size_table.DEFAULTS, size_table.SCALES)
    smoke = config.scale() == "smoke"
    name = next(n for n, s in sizes["tasks"].items() if s["section"] == "classification")
    spec = {**sizes["tasks"][name], **(SMOKE_TASK if smoke else {})}
    enc = load_backbone(sizes.get("backbone") or config.sizes()["backbone"])
    task = encode_tasks(task_specs.task_datasets({name: spec}), {name: spec}, enc.tokenizer)[name]
    backbone = truncate_backbone(enc.backbone, 2 if smoke else sizes["encoder_layers"])
    for layer in EMBEDDINGS if fixed == "all" else ("token_embedding",) if smoke else ():
        backbone.get_layer(layer).trainable = False  # before the wrap: fresh() puts these flags back
    guess = constant_guess(task.y["train"], task.y["test"])
    seeds = sizes["seeds"][:1] if smoke else sizes["seeds"]
    return ExerciseSetup(sizes, smoke, name, task, backbone, ReusableBackbone(backbone), guess, seeds)
