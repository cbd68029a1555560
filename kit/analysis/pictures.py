"""The pictures of notebook 00 and the drawing helpers every notebook's diagrams share (boxes, arrows).

A notebook shows a picture with one call (docs/teaching.md); paper report modules draw with :func:`box` and
:func:`arrow`. Each returns its matplotlib figure; matplotlib is imported when one is drawn.

>>> import matplotlib
>>> matplotlib.use("Agg")
>>> fig = draw_finetuning()
>>> fig.axes[0].get_title()
'fine-tuning: the loss updates every weight, the encoder (blue) and the head (orange)'
"""

from __future__ import annotations

import numpy as np

#: The colours of the course's diagrams: the encoder, a head, the data, a loss, a noise, what is shared.
COLORS = {
    "encoder": "#cfe3f5",
    "head": "#fbd3a8",
    "data": "white",
    "loss": "#eeeeee",
    "noise": "#f3c9d4",
    "shared": "#dbe8f6",
}


def box(ax, x: float, y: float, text: str, color: str = "white", fontsize: float = 9):
    """Write ``text`` (``$...$`` mathtext allowed) in a rounded box centred at ``(x, y)``; the ``Text`` is an anchor."""
    return ax.text(x, y, text, ha="center", va="center", fontsize=fontsize,
                   bbox={"boxstyle": "round,pad=0.35", "fc": color, "ec": "0.4"})  # fmt: skip


def arrow(ax, start, end, color: str = "0.3", **style):
    """An arrow from ``start`` to ``end``: two ``(x, y)`` points, or two boxes from :func:`box` (edge to edge).

    ``**style``: more of matplotlib's ``arrowprops`` (``linestyle``, ``connectionstyle``, ``shrinkA``, ...).
    """
    props = {"arrowstyle": "->", "color": color, "shrinkA": 4, "shrinkB": 4, **style}
    if isinstance(start, tuple) and isinstance(end, tuple):
        ax.annotate("", xy=end, xytext=start, arrowprops=props)
    else:
        ax.annotate("", xy=(0, 0.5), xycoords=end, xytext=(1, 0.5), textcoords=start, arrowprops=props)


def canvas(size, xlim, ylim, title: str = ""):
    """``(figure, axes)`` for a diagram of ``size`` inches: limits set, frame and ticks off.

    Example:
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> fig, ax = canvas((4, 2), (0, 1), (0, 1), "two boxes")
        >>> arrow(ax, box(ax, 0.2, 0.5, "a"), box(ax, 0.8, 0.5, "b"))
        >>> ax.get_title(), ax.axison
        ('two boxes', False)
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=size)
    ax.set(xlim=xlim, ylim=ylim)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=9)
    return fig, ax


def draw_wordpiece(pieces: list, tokens: list, segment_ids: list, padding_mask: list):
    """WordPiece in two rows: one word split into pieces (a colour each), then a packed, padded sentence pair.

    ``pieces``: ``"##"`` marks a continuation; ``tokens``: ``[CLS] A [SEP] B [SEP]`` and padding, with per-token
    ``segment_ids`` (0/1) and ``padding_mask`` (1 real).

    Example:
        >>> fig = draw_wordpiece(["play", "##ing"], ["[CLS]", "play", "##ing", "[SEP]"], [0] * 4, [1] * 4)
        >>> len(fig.axes)
        2
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 3.4))
    x, colors, word = 0, plt.cm.Pastel1.colors, "".join(p.removeprefix("##") for p in pieces)
    for i, piece in enumerate(pieces):  # one box per character, one colour per piece
        chars = piece.removeprefix("##")
        for c in chars:
            top.add_patch(Rectangle((x, 0.5), 1, 1, facecolor=colors[i % len(colors)], edgecolor="black"))
            top.text(x + 0.5, 1.0, c, ha="center", va="center", fontsize=12)
            x += 1
        top.text(x - len(chars) / 2, 0.1, piece, ha="center", va="center", fontsize=10, family="monospace")
    top.text(-0.3, 1.0, "word", ha="right", va="center")
    top.text(-0.3, 0.1, "pieces", ha="right", va="center")
    top.set_title(f"greedy longest match: '{word}' -> {len(pieces)} pieces ('##' = continues the word)", fontsize=10)
    top.set(xlim=(-2.5, max(12.5, x + 0.5)), ylim=(-0.2, 1.7))
    top.axis("off")
    for j, (t, s, m) in enumerate(zip(tokens, segment_ids, padding_mask)):
        color = "white" if not m else ("tab:blue" if s == 0 else "tab:orange")
        bottom.add_patch(Rectangle((j * 1.1, 1.0), 1, 0.8, facecolor=color, alpha=0.35, edgecolor="black"))
        for y, value, size in ((1.4, t, 9), (0.6, s, 10), (0.1, m, 10)):
            bottom.text(j * 1.1 + 0.5, y, str(value), ha="center", va="center", fontsize=size)
    for y, name in ((1.4, "tokens"), (0.6, "segment_ids"), (0.1, "padding_mask")):
        bottom.text(-0.3, y, name, ha="right", va="center", family="monospace", fontsize=9)
    bottom.set_title("a packed pair: [CLS] A [SEP] B [SEP], padded to sequence_length", fontsize=10)
    bottom.set(xlim=(-2.5, max(12.5, 1.1 * len(tokens) + 0.5)), ylim=(-0.2, 1.9))
    bottom.axis("off")
    fig.tight_layout()
    return fig


def draw_finetuning(layers: int = 6, encoder: str = "MiniLM", dropout: float = 0.1):
    """Fine-tuning's data flow: token ids -> encoder -> pooled [CLS] -> dropout -> dense -> softmax -> loss."""
    steps = [("token ids\n[CLS] a fine\nfilm [SEP]", COLORS["data"]),
             (f"encoder\n{layers} layers ({encoder})\nstate $h_{{[CLS]}}$", COLORS["encoder"]),
             ("pooler $W_p, b_p$\n$h = \\tanh(\\ldots)$", COLORS["encoder"]),
             (f"dropout {dropout:g}\n(training only)", COLORS["data"]),
             ("dense $W, b$\nlogits $z = Wh + b$", COLORS["head"]), ("softmax\nprobabilities $p$", COLORS["data"]),
             ("loss\n$-\\log p_y$", COLORS["loss"])]  # fmt: skip
    fig, ax = canvas(
        (10, 2.6),
        (-0.9, 11.1),
        (-0.6, 1.4),
        "fine-tuning: the loss updates every weight, the encoder (blue) and the head (orange)",
    )
    boxes = [box(ax, i * 1.7, 0.45, label, color, fontsize=8) for i, (label, color) in enumerate(steps)]
    for left, right in zip(boxes, boxes[1:]):
        arrow(ax, left, right)
    arrow(ax, (10.6, 1.15), (1.7, 1.15), color="tab:red", linestyle="--", shrinkA=0, shrinkB=0)
    ax.text(6.1, 1.22, "the gradient of the loss flows back through every layer", ha="center", va="bottom",
            color="tab:red", fontsize=8)  # fmt: skip
    ax.text(2.55, -0.35, "backbone(x)['pooled_output']", ha="center", family="monospace", fontsize=8)
    ax.text(6.8, -0.35, "ClassifierHead (build_classifier)", ha="center", family="monospace", fontsize=8)
    fig.tight_layout()
    return fig


def draw_data_overview(labelled: list, lengths: dict):
    """The labelled sets at a glance: each set's training classes (bars), and text lengths in words (histograms).

    ``labelled``: data sets (``name``, ``num_classes``, ``label_names``, ``train.y``), a panel each; ``lengths``:
    ``{name: words per text}``, histograms on a shared log axis in the last panel.

    Example:
        >>> from types import SimpleNamespace as NS
        >>> ds = NS(name="toy", num_classes=2, label_names=["no", "yes"], train=NS(y=np.array([0, 1, 1])))
        >>> fig = draw_data_overview([ds], {"toy": [3, 5, 8]})
        >>> [ax.get_title() for ax in fig.axes]
        ['toy: train classes', 'text lengths']
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(labelled) + 1, figsize=(5 * (len(labelled) + 1), 3.6))
    for ax, ds in zip(axes, labelled):
        counts = np.bincount(np.asarray(ds.train.y), minlength=ds.num_classes)
        ax.bar(range(ds.num_classes), counts, color="tab:blue")
        ax.set_xticks(range(ds.num_classes), ds.label_names, rotation=20, fontsize=8)
        ax.set(title=f"{ds.name}: train classes", ylabel="examples")
    bins, colors = np.logspace(0, 3.5, 40), ["tab:orange", "tab:green", "tab:purple", "tab:red", "tab:brown"]
    for (name, words), color in zip(lengths.items(), colors):
        axes[-1].hist(words, bins=bins, alpha=0.6, label=name, color=color, density=True)
    axes[-1].set_xscale("log")
    axes[-1].set(xlabel="words per text", ylabel="density", title="text lengths")
    axes[-1].legend()
    fig.tight_layout()
    return fig


def draw_finetune_result(history: dict, key: str, scores, metric: str, title: str):
    """A fine-tune's curves (train and dev per epoch) beside its test score and the baselines' (bars from zero).

    ``history``: ``fit.history`` with ``key`` (``"accuracy"``/``"loss"``) and ``"val_" + key``; ``scores``:
    ``{model: test score}``, baselines first; ``metric``: the bars' axis (``"test_accuracy"``).

    Example:
        >>> fig = draw_finetune_result({"accuracy": [0.6, 0.8], "val_accuracy": [0.7, 0.75]}, "accuracy",
        ...                            {"majority": 0.5, "fine-tuned": 0.8}, "test_accuracy", "100 examples")
        >>> float(fig.axes[1].get_xlim()[0])   # bars start at zero
        0.0
    """
    import matplotlib.pyplot as plt

    fig, (curves, bars) = plt.subplots(1, 2, figsize=(10, 3.4))
    epochs = np.arange(1, len(history[key]) + 1)
    curves.plot(epochs, history[key], "o-", label="train")
    curves.plot(epochs, history["val_" + key], "o-", label="dev")
    curves.set_xticks(epochs)
    curves.set(xlabel="epoch", ylabel=key, title="fine-tuning, epoch by epoch")
    curves.legend()
    names, values = list(scores), [float(v) for v in scores.values()]
    bars.barh(names, values, color=["grey", "tab:orange", "tab:blue", "tab:green"][: len(names)])
    for i, v in enumerate(values):
        bars.text(v + 0.005, i, f"{v:.3f}", va="center")
    bars.set(xlabel=metric, title=title, xlim=(min(0.0, *values) * 1.15, max(0.0, *values) * 1.15 or 1.0))
    fig.tight_layout()
    return fig
