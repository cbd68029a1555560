"""Inputs the tests share (imported as ``from tests.helpers import ...``; fixtures live in ``conftest.py``)."""

import json
import socket
from pathlib import Path

import numpy as np

#: Committed reference outputs (``tests/fixtures``), each with the script that made it.
FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: The repository's root.
ROOT = FIXTURES.parent.parent
#: The merges of the tiny byte-level BPE vocabulary of the RoBERTa tests (keras-hub's and HuggingFace's format).
ROBERTA_MERGES = ["Ġ f", "Ġf i", "Ġfi l", "Ġfil m", "Ġ a", "i n", "Ġ t", "h e", "Ġt he"]


def notebook_paths(papers_only: bool = False, root: Path = ROOT) -> list[Path]:
    """The registered notebooks' paths (kit/notebooks.py, read at the call), or only the paper notebooks' (01-...)."""
    from kit import notebooks

    return [root / "notebooks" / f"{nb.stem}.ipynb" for nb in notebooks.NOTEBOOKS if nb.paper or not papers_only]


#: The tiny random BERT's sizes (the ``tiny_bert`` fixture's): :func:`tiny_backbone`'s defaults.
TINY_BERT = {
    "vocabulary_size": 64,
    "num_layers": 2,
    "num_heads": 2,
    "hidden_dim": 16,
    "max_sequence_length": 16,
    "hidden_activation": "gelu",
}


def tiny_backbone(seed=None, **sizes):
    """A tiny random ``kit.models.BertBackbone``: :data:`TINY_BERT` with ``sizes`` (any BertBackbone keyword) over it.

    ``intermediate_dim`` is twice ``hidden_dim`` unless given; ``seed`` (when given) seeds Keras first.
    """
    import keras

    from kit.models import BertBackbone

    if seed is not None:
        keras.utils.set_random_seed(seed)
    sizes = {**TINY_BERT, **sizes}
    return BertBackbone(**{"intermediate_dim": 2 * sizes["hidden_dim"], **sizes})


def tiny_inputs(batch=4, seq=10, vocab=64, seed=0):
    rng = np.random.default_rng(seed)
    mask = np.ones((batch, seq), "int32")
    mask[:, seq - 3 :] = 0
    return {
        "token_ids": (rng.integers(1, vocab, (batch, seq)) * mask).astype("int32"),
        "segment_ids": np.zeros((batch, seq), "int32"),
        "padding_mask": mask,
    }


#: A WordPiece vocabulary with sub-tokens ("cat ##s", "mat ##tress") and a two-word name, for the tagging tests.
TAGGING_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "##s", "sat", "on", "mat", "##tress"]
TAGGING_VOCAB += ["new", "york", ",", "."]


def tagging_preprocessor(length=12):
    """A BertPreprocessor of ``length`` tokens over :data:`TAGGING_VOCAB`."""
    import keras_hub

    from kit.text.wordpiece import BertPreprocessor

    return BertPreprocessor(keras_hub.models.BertTokenizer(vocabulary=TAGGING_VOCAB), length)


#: Brown-style part-of-speech tags of :func:`brown_tagged`'s first sentence (proper nouns: np, np$, nps, np+bez).
BROWN_POS = ["at", "np", "np$", "nn", "nps", ".", "np+bez", "np"]


def brown_tagged():
    """A three-sentence Brown-tagged TextDataset (the same split as train, dev and test) with proper nouns to find."""
    from kit.data import Split, TextDataset

    tagset = sorted(set(BROWN_POS) | {"vbd"})
    idx = {t: i for i, t in enumerate(tagset)}
    sents = [
        (["The", "Mary", "Jane's", "dog", "Americans", ".", "John's", "Smith"], BROWN_POS),
        (["He", "ran", "."], ["np", "vbd", "."]),
        (["A", "dog", "."], ["at", "nn", "."]),
    ]
    split = Split(texts=[w for w, _ in sents], labels=[[idx[t] for t in tags] for _, tags in sents])
    return TextDataset("toy_pos", "tagging", {"train": split, "dev": split, "test": split}, tagset)


def token_states(batch=3, steps=7, dim=8, seed=0, ends=(5, 4)):
    """A rich head's input dict: random token states and a padding mask whose rows 1, 2, ... end at ``ends``."""
    rng = np.random.default_rng(seed)
    mask = np.ones((batch, steps), "int32")
    for row, end in enumerate(ends, start=1):
        mask[row, end:] = 0
    return {"sequence_output": rng.normal(size=(batch, steps, dim)).astype("float32"), "padding_mask": mask}


def hub_reachable() -> bool:
    """Whether the model hub's host resolves here (it never does on the offline machines)."""
    try:
        socket.getaddrinfo("api.kaggle.com", 443)
        return True
    except OSError:
        return False


def roberta_vocab() -> dict:
    """``{token: id}`` of a tiny RoBERTa vocabulary: specials, the 256 byte symbols, :data:`ROBERTA_MERGES`' tokens."""
    from tokenizers.pre_tokenizers import ByteLevel

    tokens = [
        "<s>",
        "<pad>",
        "</s>",
        "<unk>",
        *sorted(ByteLevel.alphabet()),
        *[m.replace(" ", "") for m in ROBERTA_MERGES],
        "<mask>",
    ]
    return {t: i for i, t in enumerate(tokens)}


def write_roberta_preset(folder):
    """A keras-hub preset folder of a tiny random RoBERTa in ``folder``; returns the keras-hub backbone it came from."""
    import keras
    import keras_hub

    keras.utils.set_random_seed(0)
    base = keras_hub.models.RobertaBackbone(
        vocabulary_size=len(roberta_vocab()),
        num_layers=2,
        num_heads=2,
        hidden_dim=8,
        intermediate_dim=16,
        max_sequence_length=24,
        dropout=0.0,
    )
    base.save_to_preset(str(folder))
    assets = folder / "assets" / "tokenizer"
    assets.mkdir(parents=True, exist_ok=True)
    (assets / "vocabulary.json").write_text(json.dumps(roberta_vocab()))  # keras-hub's RoBERTa asset names
    (assets / "merges.txt").write_text("\n".join(ROBERTA_MERGES) + "\n")
    return base


def figure_texts(fig) -> list[str]:
    """Every title, axis label, tick label, legend entry and text a matplotlib figure shows (empty ones left out)."""
    texts = [fig._suptitle.get_text()] if fig._suptitle is not None else []
    texts += [t.get_text() for t in fig.texts]
    for ax in fig.axes:
        texts += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel(), *(t.get_text() for t in ax.texts)]
        texts += [t.get_text() for t in (*ax.get_xticklabels(), *ax.get_yticklabels())]
        legends = [ax.get_legend()] if ax.get_legend() is not None else []
        texts += [t.get_text() for legend in legends for t in (legend.get_title(), *legend.get_texts())]
    texts += [t.get_text() for legend in fig.legends for t in (legend.get_title(), *legend.get_texts())]
    return [t for t in texts if t.strip()]


def assert_readable(fig, *, words=()) -> None:
    """A figure a person reads: something drawn, no raw dict or list in any text, and ``words`` among its texts.

    Args:
        fig: a matplotlib figure.
        words: strings that must appear in some title, label or text (case-sensitive).
    """
    import re

    texts = figure_texts(fig)
    drawn = [ax for ax in fig.axes if ax.lines or ax.patches or ax.images or ax.collections or ax.texts]
    assert drawn, "nothing drawn"
    repr_ = r"\{['\"][^'\"]*['\"]: |\[['\"][^'\"]*['\"], "  # a dict's or a list's repr: "{'target': ...", "['a', ..."
    raw = [t for t in texts if re.search(repr_, t)]
    assert not raw, f"raw Python values in the figure's texts: {raw}"
    for word in words:
        assert any(word in t for t in texts), f"{word!r} is not in the figure's texts {texts}"


def overlapping_texts(ax, min_overlap: float = 2.0) -> list[tuple[str, str]]:
    """Pairs of an axes' texts (annotations, tick labels, title) whose drawn boxes overlap by more than a few pixels.

    Args:
        ax: a matplotlib axes, on a figure that can be drawn (e.g. the Agg backend).
        min_overlap: pixels both sides of an overlap must exceed to count.

    Returns:
        ``[(text, text), ...]``, empty when every label stands apart.
    """
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = [t for t in (*ax.texts, *ax.get_yticklabels(), *ax.get_xticklabels(), ax.title) if t.get_text().strip()]
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts if t.get_visible()]
    found = []
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1 :]:
            width = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
            height = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
            if width > min_overlap and height > min_overlap:
                found.append((a, b))
    return found
