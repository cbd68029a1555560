r"""WordPiece tokenization and BERT packing outside the model graph: texts (or pairs) to NumPy inputs.

:class:`WordPieceTokenizer` is BERT's uncased WordPiece run by HuggingFace's Rust ``tokenizers`` from ``vocab.txt``:
``BertTokenizerFast``'s tokenizer, so ids match ``transformers`` (tested); no TensorFlow, ~6x faster than keras-hub's on
long passages (whose NFKC folding, "½" → "1⁄2", final "ς" → "σ", gave other ids on 6 of 5,500 passages).
:class:`BertPreprocessor` reads a tuple as a pair ``(texts_a, texts_b)``, never as ``(x, y)`` (keras-hub's silently
turns the second sentences into labels).

>>> tok = WordPieceTokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "fine", "film", "##s", "."])
>>> tok(["A fine films.", "Naïve"])
[[5, 6, 7, 8, 9], [1]]
>>> BertPreprocessor(tok, sequence_length=8)(["a film"])["token_ids"].tolist()
[[2, 5, 7, 3, 0, 0, 0, 0]]
>>> clean_text("zero\u200bwidth\x07 bell")
'zerowidth bell'
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

#: BERT's special tokens (ids come from the vocabulary): never masked, kept first in a compact vocabulary.
BERT_SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def clean_text(text: str) -> str:
    """HuggingFace BERT cleaning: drop NUL, U+FFFD and category-C chars; whitespace to spaces.

    Tab, newline, carriage return and space separators (Zs) become one space each. The tokenizer does this itself, in
    Rust; this Python version documents it.
    """
    out = []
    for ch in text:
        cp = ord(ch)
        if ch in "\t\n\r" or unicodedata.category(ch) == "Zs":
            out.append(" ")
        elif cp == 0 or cp == 0xFFFD or unicodedata.category(ch).startswith("C"):
            continue
        else:
            out.append(ch)
    return "".join(out)


def _as_text_list(texts, what: str) -> list[str]:
    if isinstance(texts, str):
        raise TypeError(f"{what}: got one string; pass a list of texts, e.g. [{texts[:30]!r}].")
    texts = list(texts)
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"{what}: item {i} is {type(t).__name__}, not a string: {t!r:.60}")
    return texts


class VocabularyLookup:
    """Token <-> id lookups of a tokenizer that keeps ``vocabulary`` (tokens in id order) and ``_index`` (token -> id).

    Shared by :class:`WordPieceTokenizer` and :class:`~kit.text.ByteLevelBPETokenizer`.
    """

    def token_to_id(self, token: str) -> int:
        """The id of ``token`` (KeyError if it is not in the vocabulary)."""
        if token not in self._index:
            raise KeyError(f"{token!r} is not in the vocabulary ({len(self.vocabulary):,} tokens).")
        return self._index[token]

    def id_to_token(self, token_id: int) -> str:
        """The token of ``token_id`` (below :meth:`vocabulary_size`)."""
        return self.vocabulary[int(token_id)]

    def vocabulary_size(self) -> int:
        """How many tokens the vocabulary holds."""
        return len(self.vocabulary)


class WordPieceTokenizer(VocabularyLookup):
    """BERT WordPiece (HuggingFace's normalizer, pre-tokenizer and model, in Rust): texts → lists of ids.

    ``vocabulary``: tokens in id order or a ``vocab.txt`` path (one token per line), no repeats, with [PAD], [UNK],
    [CLS], [SEP], [MASK]. ``lowercase`` True: the uncased BERT vocabulary; ``strip_accents`` None follows ``lowercase``
    (HuggingFace's rule). Words longer than 100 characters become ``unk_token``, as in BERT. A vocabulary that repeats a
    token or lacks a special token is a ValueError.
    """

    def __init__(self, vocabulary, lowercase: bool = True, strip_accents: bool | None = None, unk_token: str = "[UNK]"):
        if isinstance(vocabulary, (str, Path)):
            vocabulary = Path(vocabulary).read_text(encoding="utf-8").splitlines()
        tokens = list(vocabulary)
        if len(set(tokens)) != len(tokens):
            dup = next(t for i, t in enumerate(tokens) if t in tokens[:i])
            raise ValueError(f"The vocabulary repeats the token {dup!r}: each line of vocab.txt must be unique.")
        missing = [t for t in BERT_SPECIAL_TOKENS if t not in tokens]
        if missing:
            raise ValueError(
                f"The vocabulary has no {missing}: a BERT vocab.txt lists [PAD], [UNK], [CLS], [SEP] and [MASK]."
            )
        self.vocabulary = tokens
        self.lowercase = bool(lowercase)
        self.strip_accents = strip_accents
        self.unk_token = unk_token
        self._index = {t: i for i, t in enumerate(tokens)}
        tok = Tokenizer(models.WordPiece(self._index, unk_token=unk_token, max_input_chars_per_word=100))
        tok.normalizer = normalizers.BertNormalizer(
            clean_text=True, handle_chinese_chars=True, strip_accents=strip_accents, lowercase=self.lowercase
        )
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        self._tok = tok
        self.pad_token_id, self.unk_token_id, self.cls_token_id, self.sep_token_id, self.mask_token_id = (
            self._index[t] for t in BERT_SPECIAL_TOKENS
        )

    @classmethod
    def from_folder(cls, folder) -> WordPieceTokenizer:
        """The tokenizer of a HuggingFace BERT folder (``vocab.txt`` + ``tokenizer_config.json``) or a kit-saved one.

        The config's ``do_lower_case`` and ``strip_accents`` apply; without a config it lowercases (uncased BERT). No
        ``vocab.txt`` is a FileNotFoundError.
        """
        folder = Path(folder)
        vocab = folder / "vocab.txt"
        if not vocab.exists():
            raise FileNotFoundError(f"No vocab.txt in {folder}: a BERT tokenizer folder holds one token per line.")
        cfg_path = folder / "tokenizer_config.json"
        cfg = json.loads(cfg_path.read_text()) if cfg_path.exists() else {}
        return cls(vocab, lowercase=cfg.get("do_lower_case", True), strip_accents=cfg.get("strip_accents"))

    def save(self, folder) -> Path:
        """Write HuggingFace's ``vocab.txt``, ``tokenizer_config.json`` into ``folder`` (made if missing); return it."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "vocab.txt").write_text("\n".join(self.vocabulary) + "\n", encoding="utf-8")
        (folder / "tokenizer_config.json").write_text(
            json.dumps(
                {
                    "do_lower_case": self.lowercase,
                    "strip_accents": self.strip_accents,
                    "tokenizer_class": "BertTokenizer",
                },
                indent=1,
            )
        )
        return folder

    def __call__(self, texts: Sequence[str]) -> list[list[int]]:
        """WordPiece ids of each text in ``texts`` (no special tokens; one string alone is an error)."""
        texts = _as_text_list(texts, "texts")
        return [e.ids for e in self._tok.encode_batch(texts, add_special_tokens=False)] if texts else []

    def normalize(self, text: str) -> str:
        """``text`` as the tokenizer sees it before splitting (cleaned, lowercased, accents stripped)."""
        return self._tok.normalizer.normalize_str(text)

    def __repr__(self):
        return (
            f"WordPieceTokenizer({len(self.vocabulary):,} tokens, lowercase={self.lowercase}, "
            f"strip_accents={self.strip_accents})"
        )


class BertPreprocessor:
    """Texts or ``(texts_a, texts_b)`` → dict of NumPy ``token_ids``, ``segment_ids``, ``padding_mask``.

    BERT packs ``[CLS] A [SEP]`` and ``[CLS] A [SEP] B [SEP]``; with :class:`~kit.text.ByteLevelBPETokenizer`
    (``pair_separators = 2``) the same code packs RoBERTa's ``<s> A </s>`` and ``<s> A </s></s> B </s>`` (segment 1 from
    the second ``</s>``). ``tokenizer`` needs ``cls_token_id``, ``sep_token_id``, ``pad_token_id`` (keras-hub's works
    too). Longer sequences are cut to ``sequence_length`` (pairs: the longer side loses a token at a time, HuggingFace's
    ``longest_first``); ``last_truncated`` counts the last call's cut inputs. ``sequence_length`` may not exceed
    ``max_sequence_length`` (the model's position embeddings) nor be below 3 ([CLS] x [SEP]): ValueError.

    Example:
        >>> tok = WordPieceTokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "fine", "film"])
        >>> pre = BertPreprocessor(tok, sequence_length=8)
        >>> pre(["a fine film"])["token_ids"].shape
        (1, 8)
        >>> pre((["a film"], ["fine"]))["segment_ids"][0].tolist()
        [0, 0, 0, 0, 1, 1, 0, 0]
    """

    def __init__(self, tokenizer, sequence_length: int = 128, max_sequence_length: int = 512):
        if sequence_length > max_sequence_length:
            raise ValueError(
                f"sequence_length={sequence_length} is longer than the model's {max_sequence_length} "
                f"position embeddings. Use sequence_length <= {max_sequence_length}."
            )
        if sequence_length < 3:
            raise ValueError("sequence_length must be at least 3 ([CLS] x [SEP]).")
        self.tokenizer = tokenizer
        self.sequence_length = int(sequence_length)
        self.max_sequence_length = int(max_sequence_length)
        self.cls_id = int(tokenizer.cls_token_id)
        self.sep_id = int(tokenizer.sep_token_id)
        self.pad_id = int(tokenizer.pad_token_id)
        self.pair_separators = int(getattr(tokenizer, "pair_separators", 1))  # RoBERTa: <s> A </s></s> B </s>
        self.last_truncated = 0

    def tokenize(self, texts: Sequence[str], max_tokens: int | None = None) -> list[list[int]]:
        """WordPiece ids (no special tokens) for each text.

        With ``max_tokens``, a long text is tokenized from its first ``max_tokens`` normalized words (each gives at
        least one id), and in full in the rare case that gives fewer: the result equals ``tokenize(texts)`` cut to
        ``max_tokens``.
        """
        texts = _as_text_list(texts, "tokenize")
        if not texts:
            return []
        if max_tokens is None:
            return self._ids(texts)
        # a text of more than max_tokens words: tokenize its first max_tokens (normalized) words only
        first_words = getattr(self.tokenizer, "first_words", None)  # byte-level BPE: the text's own prefix
        cut = {}
        for i, t in enumerate(texts):
            if len(t) > 2 * max_tokens:  # shorter texts cannot hold more than max_tokens words
                if first_words is not None:
                    head = first_words(t, max_tokens)
                    if len(head) < len(t):
                        cut[i] = head
                    continue
                words = self._normalize(t).split()
                if len(words) > max_tokens:
                    cut[i] = " ".join(words[:max_tokens])
        ids = self._ids([cut.get(i, t) for i, t in enumerate(texts)])
        redo = [i for i in cut if len(ids[i]) < max_tokens]
        for i, row in zip(redo, self._ids([texts[i] for i in redo]) if redo else []):
            ids[i] = row
        return [row[:max_tokens] for row in ids]

    def _normalize(self, text: str) -> str:
        normalize = getattr(self.tokenizer, "normalize", None)
        return normalize(text) if normalize is not None else clean_text(text)

    def _ids(self, texts: list[str]) -> list[list[int]]:
        ids = self.tokenizer(texts)
        if hasattr(ids, "to_list"):  # a keras-hub tokenizer (tf.RaggedTensor)
            ids = ids.to_list()
        elif hasattr(ids, "numpy"):
            ids = ids.numpy().tolist()
        return [list(map(int, row)) for row in ids]

    def __call__(self, inputs) -> dict[str, np.ndarray]:
        """Pack texts or a pair ``(texts_a, texts_b)`` of equal-length lists into int32 ``(n, sequence_length)`` arrays.

        A tuple is always two text lists, never ``(x, y)``: a tuple of more or fewer than two parts, or pair lists of
        different lengths, is a ValueError; a tuple of two strings (ambiguous), one string alone, or an item that is not
        a string, a TypeError.
        """
        if isinstance(inputs, tuple):
            if len(inputs) != 2:
                raise ValueError(f"A tuple means a sentence pair (texts_a, texts_b); got {len(inputs)} parts.")
            a, b = inputs
            if isinstance(a, str) and isinstance(b, str):
                raise TypeError(
                    "Ambiguous input: a tuple of two strings. For one pair pass (['first'], "
                    "['second']); for two single texts pass a list ['first', 'second']."
                )
            a = _as_text_list(a, "texts_a")
            b = _as_text_list(b, "texts_b")
            if len(a) != len(b):
                raise ValueError(f"Pair lists differ in length: {len(a)} first texts, {len(b)} second texts.")
            cap = self.sequence_length - 2  # one past the budget: enough to truncate exactly and count the cut
            return self._pack(self.tokenize(a, cap), self.tokenize(b, cap))
        return self._pack(self.tokenize(_as_text_list(inputs, "texts"), self.sequence_length - 1), None)

    def _pack(self, ids_a, ids_b):
        n, L = len(ids_a), self.sequence_length
        token_ids = np.full((n, L), self.pad_id, dtype="int32")
        segment_ids = np.zeros((n, L), dtype="int32")
        padding_mask = np.zeros((n, L), dtype="int32")
        truncated = 0
        for i in range(n):
            a = ids_a[i]
            b = ids_b[i] if ids_b is not None else None
            budget = L - (2 + self.pair_separators if b is not None else 2)
            if budget < 0:
                raise ValueError(
                    f"sequence_length={L} cannot hold a pair's {2 + self.pair_separators} special "
                    f"tokens; use sequence_length >= {3 + self.pair_separators}."
                )
            if b is None:
                if len(a) > budget:
                    a, truncated = a[:budget], truncated + 1
                row = [self.cls_id] + a + [self.sep_id]
                seg = [0] * len(row)
            else:
                a, b = list(a), list(b)
                if len(a) + len(b) > budget:
                    truncated += 1
                    while len(a) + len(b) > budget:
                        (a if len(a) > len(b) else b).pop()
                row = [self.cls_id] + a + [self.sep_id] * self.pair_separators + b + [self.sep_id]
                seg = [0] * (len(a) + 2) + [1] * (len(b) + self.pair_separators)
            token_ids[i, : len(row)] = row
            segment_ids[i, : len(seg)] = seg
            padding_mask[i, : len(row)] = 1
        self.last_truncated = truncated
        return {"token_ids": token_ids, "segment_ids": segment_ids, "padding_mask": padding_mask}
