"""Save a trained model with everything it needs to read text, and load it back on any backend.

A bundle is a folder::

    model.keras            the Keras model (any backend can load it)
    tokenizer/             vocab.txt + tokenizer_config.json (WordPiece), or vocab.json + merges.txt (RoBERTa's BPE)
    compact_vocab.npy      the kept WordPiece ids (TLM's compact vocabulary), if any
    words.txt              the word vocabulary (LSTMs from scratch), if any
    bundle.json            sequence length, label names, task, kit version, what it was trained on

``load_bundle(folder).predict(["a text"])`` tokenizes as training did: class probabilities (or regression numbers).

>>> import tempfile, numpy as np
>>> from kit.text import WordVocab
>>> from kit.models import build_lstm_classifier
>>> vocab = WordVocab.fit(["a good film", "a bad film"])
>>> model = build_lstm_classifier(len(vocab), 2, n_layers=1, cells=4, embedding_dim=8)
>>> folder = save_bundle(tempfile.mkdtemp(), model, word_vocab=vocab, sequence_length=8,
...                      label_names=["neg", "pos"])
>>> b = load_bundle(folder)
>>> b.label_names, b.predict(["a good film"]).shape
(['neg', 'pos'], (1, 2))
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import keras
import numpy as np

from .. import __version__, optimizers
from ..files import recover_folder, replacing_folder
from ..metrics import masked_tokens, task_scores
from ..text import BertPreprocessor, ByteLevelBPETokenizer, CompactVocabulary, WordPieceTokenizer, WordVocab

#: What a model saved after ``compile`` may name besides the layers of :mod:`kit.models`: the kit's optimizers and
#: schedules, and its metrics (Pearson, the masked loss and accuracy). Importing these modules registers them with
#: Keras, so :func:`load_bundle` can read the file in a fresh process.
REGISTERED = (optimizers, masked_tokens, task_scores)


@dataclass
class Bundle:
    """A loaded bundle: the Keras ``model`` and how to turn texts into its inputs.

    Texts are padded or cut to ``sequence_length`` by ``preprocessor`` (``kit.text.BertPreprocessor``: WordPiece and BPE
    models) then ``vocabulary`` (``kit.text.CompactVocabulary``: TLM), or by ``word_vocab`` (``kit.text.WordVocab``:
    LSTMs from scratch); absent ones are None. ``label_names``: the classes in output order (None: regression).
    ``info``: what it was trained on; its ``input``/``output`` pick the model's input and output when it has several.
    """

    model: keras.Model
    sequence_length: int
    preprocessor: object = None
    vocabulary: object = None
    word_vocab: object = None
    label_names: list | None = None
    info: dict = field(default_factory=dict)

    def inputs(self, texts):
        """The model's inputs for ``texts`` (a list, or a ``(texts_a, texts_b)`` pair), tokenized the way training did.

        Word ids ``(n, sequence_length)``, the preprocessor's dict, or its ``token_ids`` alone, as the model was
        trained. A bundle with no tokenizer or vocabulary is a ValueError.
        """
        if self.word_vocab is not None:
            return self.word_vocab.encode(list(texts), self.sequence_length)
        if self.preprocessor is None:
            raise ValueError("This bundle has no tokenizer or vocabulary: pass the model's inputs yourself.")
        x = self.preprocessor(texts)
        if self.vocabulary is not None:
            x = self.vocabulary(x)
        if self.info.get("input") == "token_ids":
            return x["token_ids"]
        return x

    def predict(self, texts, batch_size: int = 64) -> np.ndarray:
        """Class probabilities ``(n, classes)`` (softmax of the logits), or predictions ``(n,)`` for regression.

        ``texts``: a list, or a ``(texts_a, texts_b)`` pair of lists. Regression: one output and no label names.
        """
        out = self.model.predict(self.inputs(texts), batch_size=batch_size, verbose=0)
        if isinstance(out, dict):
            out = out[self.info.get("output", "task")]
        out = np.asarray(out, "float32")
        if self.label_names is None and out.shape[-1] == 1:
            return out[:, 0]
        z = out - out.max(-1, keepdims=True)
        return np.exp(z) / np.exp(z).sum(-1, keepdims=True)


def save_bundle(
    folder,
    model: keras.Model,
    *,
    preprocessor=None,
    vocabulary=None,
    word_vocab=None,
    sequence_length: int | None = None,
    label_names=None,
    info: dict | None = None,
) -> Path:
    """Write ``model`` and its text pipeline into ``folder`` (created with its parents); return the folder.

    Give ``preprocessor`` (WordPiece and BPE models; plus ``vocabulary`` if the model reads compact ids) or
    ``word_vocab`` (LSTMs from scratch, with ``sequence_length``, the length its ids were padded to). ``label_names``:
    the classes in output order (None: regression); ``info``: what to keep about the run in ``bundle.json``. Giving
    neither (a model is of little use without its tokenization), or ``word_vocab`` without ``sequence_length``, is a
    ValueError.
    """
    folder = Path(folder)
    if preprocessor is None and word_vocab is None:
        raise ValueError(
            "Give the preprocessor (WordPiece models) or word_vocab (LSTMs from scratch): "
            "a saved model is of little use without the way its texts were tokenized."
        )
    if word_vocab is not None and sequence_length is None:
        raise ValueError("Give sequence_length: the length the word ids were padded to in training.")
    meta = {"kit": __version__, "backend": keras.backend.backend(), "label_names": label_names, "info": info or {}}
    with replacing_folder(folder) as tmp:  # the whole bundle or the old one, never a mixture of the two
        model.save(tmp / "model.keras")
        if preprocessor is not None:
            preprocessor.tokenizer.save(tmp / "tokenizer")
            meta["sequence_length"] = preprocessor.sequence_length
            meta["max_sequence_length"] = preprocessor.max_sequence_length
        if vocabulary is not None:
            np.save(tmp / "compact_vocab.npy", vocabulary.old_ids)
            meta["compact_vocabulary"] = {"unk_id": vocabulary.unk_id, "original_size": vocabulary.original_size}
        if word_vocab is not None:
            (tmp / "words.txt").write_text("\n".join(word_vocab.words[2:]) + "\n", encoding="utf-8")
        if sequence_length is not None:
            meta["sequence_length"] = int(sequence_length)
        (tmp / "bundle.json").write_text(json.dumps(meta, indent=1))
    return folder


def save_bundle_if_best(
    folder,
    model: keras.Model,
    score: float,
    *,
    config: str,
    score_name: str = "dev_score",
    info: dict | None = None,
    **bundle_args,
) -> bool:
    """Save ``model`` as a bundle in ``folder`` if ``score`` beats the bundle a run of the same ``config`` saved there.

    Returns whether it saved. Higher is better; ``config`` is the run's configuration (a sweep's fingerprint): a bundle
    of another configuration (other scale or sizes) does not compete and is replaced. ``info`` gains
    ``score_name: score`` and ``config``; ``**bundle_args`` go to :func:`save_bundle`.

    Example:
        >>> import tempfile
        >>> from kit.text import WordVocab
        >>> from kit.models import build_lstm_classifier
        >>> vocab, folder = WordVocab.fit(["a film"]), tempfile.mkdtemp()
        >>> m = build_lstm_classifier(len(vocab), 2, n_layers=1, cells=2, embedding_dim=4)
        >>> args = dict(word_vocab=vocab, sequence_length=4, config="abc")
        >>> [save_bundle_if_best(folder, m, s, **args) for s in (0.5, 0.4, 0.6)]
        [True, False, True]
        >>> save_bundle_if_best(folder, m, 0.1, word_vocab=vocab, sequence_length=4, config="other sizes")
        True
    """
    recover_folder(folder)
    path = Path(folder) / "bundle.json"
    saved = json.loads(path.read_text()).get("info", {}) if path.exists() else {}
    if saved.get("config") == config and score <= saved.get(score_name, -np.inf):
        return False
    save_bundle(folder, model, info={**(info or {}), score_name: float(score), "config": config}, **bundle_args)
    return True


def uncompiled_copy(model: keras.Model) -> keras.Model:
    """A copy of ``model`` (same config and weights) that was never compiled, to save for inference.

    A model saved after ``compile`` carries its optimizer's config, and loading it needs every class in it (e.g. the
    kit's layer-wise AdamW and its schedule) imported first; the copy loads with ``kit.models`` alone.
    """
    copy = type(model).from_config(model.get_config())
    copy.set_weights(model.get_weights())
    return copy


def load_bundle(folder) -> Bundle:
    """Load a folder written by :func:`save_bundle` (on any backend) as a :class:`Bundle`, compiled for this backend.

    A folder without ``bundle.json`` or ``model.keras`` is a FileNotFoundError. A model saved inside a training wrapper
    (``kit.train.SMART``) names an unregistered kit class (TypeError): ``import kit.train`` first, or save the inner
    model.
    """
    folder = Path(folder)
    recover_folder(folder)  # a save killed between its two moves: put the bundle back
    if not (folder / "bundle.json").exists() or not (folder / "model.keras").exists():
        raise FileNotFoundError(
            f"{folder} is not a saved bundle (it needs bundle.json and model.keras; save_bundle writes both)."
        )
    meta = json.loads((folder / "bundle.json").read_text())
    try:
        model = keras.saving.load_model(folder / "model.keras")
    except TypeError as exc:
        if "kit>" not in str(exc):
            raise
        raise TypeError(
            f"{folder / 'model.keras'} names a class of the kit that kit.models does not register ({exc}). "
            "A model saved inside a training wrapper (kit.train.SMART) needs `import kit.train` before loading; "
            "better, save the inner model (or uncompiled_copy(model))."
        ) from None
    if getattr(model, "compiled", False):
        model.jit_compile = None  # this backend's "auto": jax saves True, which torch would run via torch.compile
    pre = vocab = words = None
    if (folder / "tokenizer").is_dir():
        tok_folder = folder / "tokenizer"
        kind = ByteLevelBPETokenizer if (tok_folder / "merges.txt").exists() else WordPieceTokenizer
        pre = BertPreprocessor(
            kind.from_folder(tok_folder), meta["sequence_length"], meta.get("max_sequence_length", 512)
        )
    if (folder / "compact_vocab.npy").exists():
        cv = meta["compact_vocabulary"]
        vocab = CompactVocabulary(np.load(folder / "compact_vocab.npy"), cv["unk_id"], cv["original_size"])
    if (folder / "words.txt").exists():
        words = WordVocab((folder / "words.txt").read_text(encoding="utf-8").split("\n")[:-1])
    return Bundle(model, int(meta["sequence_length"]), pre, vocab, words, meta.get("label_names"), meta.get("info", {}))
