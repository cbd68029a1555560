"""RoBERTa's byte-level BPE outside the model graph: texts to lists of ids, no TensorFlow.

:class:`ByteLevelBPETokenizer` (GPT-2/RoBERTa: bytes mapped to printable characters, then BPE merges) runs on
HuggingFace's Rust ``tokenizers``. ``<s>`` serves as ``cls_token_id``, ``</s>`` as ``sep_token_id``, and
``pair_separators = 2`` (``<s> A </s></s> B </s>``); text that spells a special token ("<mask>") stays text.

>>> import string
>>> from tokenizers.pre_tokenizers import ByteLevel
>>> alphabet = sorted(ByteLevel.alphabet())
>>> vocab = ["<s>", "<pad>", "</s>", "<unk>", *alphabet, "Ġf", "Ġfi", "Ġfil", "Ġfilm", "<mask>"]
>>> tok = ByteLevelBPETokenizer(vocab, ["Ġ f", "Ġf i", "Ġfi l", "Ġfil m"])
>>> [tok.id_to_token(i) for i in tok(["a film"])[0]]
['a', 'Ġfilm']
>>> tok.cls_token_id, tok.sep_token_id, tok.pad_token_id, tok.pair_separators
(0, 2, 1, 2)
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers

from .wordpiece import VocabularyLookup, _as_text_list

#: RoBERTa's special tokens: ``<s>`` (start, read as [CLS]), ``<pad>``, ``</s>`` (end and separator), ``<mask>``.
ROBERTA_SPECIAL_TOKENS = ("<s>", "<pad>", "</s>", "<mask>")
#: A run of characters the byte-level pre-tokenizer does not split on: Rust's \s (Unicode White_Space) leaves out the
#: separators U+001C-U+001F that Python's \s includes.
_WORD = re.compile(r"(?:\S|[\x1c-\x1f])+")


def _read_merges(merges) -> list[tuple[str, str]]:
    if isinstance(merges, (str, Path)):
        merges = Path(merges).read_text(encoding="utf-8").splitlines()
    out = []
    for i, line in enumerate(merges):
        if isinstance(line, (tuple, list)):
            out.append(tuple(line))
            continue
        if not line.strip() or (i == 0 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2:
            raise ValueError(
                f"merges line {i + 1} is {line!r}: each line of merges.txt holds two tokens "
                "separated by one space (e.g. 'Ġ t')."
            )
        out.append((parts[0], parts[1]))
    return out


class ByteLevelBPETokenizer(VocabularyLookup):
    """Byte-level BPE (RoBERTa, GPT-2): texts → lists of ids, no special tokens added.

    ``vocabulary``: ``{token: id}``, tokens in id order, or a ``vocab.json`` path; it must hold ``<s>``, ``<pad>``,
    ``</s>``, ``<mask>`` (``<unk>`` is used when present). ``merges``: ``"a b"`` lines (or pairs) or a ``merges.txt``
    path. ``add_prefix_space`` gives a text's first word the ``Ġ`` form it has mid-text. ValueError: two tokens share an
    id, a special token is missing, or a merges line is not two tokens.
    """

    pair_separators = 2

    def __init__(self, vocabulary, merges, add_prefix_space: bool = False):
        if isinstance(vocabulary, (str, Path)):
            vocabulary = json.loads(Path(vocabulary).read_text(encoding="utf-8"))
        if not isinstance(vocabulary, dict):
            vocabulary = {t: i for i, t in enumerate(vocabulary)}
        index = {str(t): int(i) for t, i in vocabulary.items()}
        if len(set(index.values())) != len(index):
            raise ValueError("The vocabulary gives two tokens the same id: vocab.json maps each token to its own id.")
        missing = [t for t in ROBERTA_SPECIAL_TOKENS if t not in index]
        if missing:
            raise ValueError(
                f"The vocabulary has no {missing}: a RoBERTa vocab.json lists <s>, <pad>, </s> and <mask>."
            )
        self._index = index
        self.vocabulary = [None] * (max(index.values()) + 1)
        for t, i in index.items():
            self.vocabulary[i] = t
        self.merges = _read_merges(merges)
        self.add_prefix_space = bool(add_prefix_space)
        tok = Tokenizer(models.BPE(index, self.merges, unk_token="<unk>" if "<unk>" in index else None))
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=self.add_prefix_space)
        tok.decoder = decoders.ByteLevel()
        self._tok = tok
        self.cls_token_id, self.pad_token_id, self.sep_token_id, self.mask_token_id = (
            index[t] for t in ROBERTA_SPECIAL_TOKENS
        )
        self.unk_token_id = index.get("<unk>")

    @classmethod
    def from_folder(cls, folder) -> ByteLevelBPETokenizer:
        """The tokenizer of a HuggingFace RoBERTa folder (``vocab.json`` + ``merges.txt``) or a keras-hub preset.

        A preset's ``assets/tokenizer`` (``vocabulary.json`` + ``merges.txt``), or that folder itself, works too; a
        folder with none of these is a FileNotFoundError.
        """
        folder = Path(folder)
        for vocab, merges in (
            (folder / "vocab.json", folder / "merges.txt"),
            (folder / "assets/tokenizer/vocabulary.json", folder / "assets/tokenizer/merges.txt"),
            (folder / "vocabulary.json", folder / "merges.txt"),
        ):
            if vocab.exists() and merges.exists():
                return cls(vocab, merges)
        raise FileNotFoundError(
            f"No byte-level BPE vocabulary in {folder}: a RoBERTa folder holds vocab.json and "
            "merges.txt (HuggingFace) or assets/tokenizer/vocabulary.json and merges.txt "
            "(keras-hub preset)."
        )

    def save(self, folder) -> Path:
        """Write ``vocab.json``, ``merges.txt`` (HuggingFace's layout) into ``folder`` (made if missing); return it."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "vocab.json").write_text(json.dumps(self._index, ensure_ascii=False), encoding="utf-8")
        (folder / "merges.txt").write_text(
            "#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in self.merges), encoding="utf-8"
        )
        return folder

    def __call__(self, texts: Sequence[str]) -> list[list[int]]:
        """Byte-level BPE ids of each text in ``texts`` (no special tokens; one string alone is an error)."""
        texts = _as_text_list(texts, "texts")
        return [e.ids for e in self._tok.encode_batch(texts, add_special_tokens=False)] if texts else []

    def first_words(self, text: str, n: int) -> str:
        """``text`` up to the end of its ``n``-th whitespace-separated word, as written (all of it if shorter).

        Its ids are the first ids of the whole text (byte-level BPE never merges across whitespace), and each word gives
        at least one: :meth:`~kit.text.BertPreprocessor.tokenize` cuts long texts with it.
        """
        for i, m in enumerate(_WORD.finditer(text)):
            if i + 1 == n:
                return text[: m.end()]
        return text

    def decode(self, ids) -> str:
        """The text of ``ids`` (special tokens kept as written)."""
        return self._tok.decode([int(i) for i in ids], skip_special_tokens=False)

    def __repr__(self):
        return f"ByteLevelBPETokenizer({len(self._index):,} tokens, {len(self.merges):,} merges)"
