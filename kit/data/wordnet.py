r"""WordNet 3.0 (Debian ``wordnet-base``): a parser and two sentence-pair tasks built from it.

:func:`wordnet_pairs` (``"pairs"``: definition, example; ``same`` or a hard negative, another sense of the word) and
:func:`wordnet_graded` (``"pair_regression"``: 0-5 by Wu-Palmer similarity in the hypernym hierarchy, not human
ratings). Both split train/dev/test *by word* (lemma), so no word is in two splits.

>>> text = ('00001740 03 n 01 entity 0 000 | that which exists; "an entity"\n'
...         '00002137 03 n 02 abstraction 0 abstract_entity 0 001 @ 00001740 n 0000 | a concept\n')
>>> syn = parse_data_lines(text.splitlines(), "n")
>>> s = syn[("n", 2137)]
>>> s.lemmas, s.definition, s.hypernyms
(('abstraction', 'abstract entity'), 'a concept', (('n', 1740),))
>>> syn[("n", 1740)].examples
('an entity',)
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .dataset import Split, TextDataset

SPLIT_SEED = 1234
POS_FILES = {"n": "data.noun", "v": "data.verb", "a": "data.adj", "r": "data.adv"}
LICENCE = (
    "WordNet 3.0 licence (Princeton University; free to use, copy and distribute with the "
    "copyright notice); Debian package wordnet-base 1:3.0-37"
)
_ADJ_MARKER = re.compile(r"\((?:a|p|ip)\)$")
_EXAMPLE = re.compile(r'"([^"]+)"')


@dataclass(frozen=True)
class Synset:
    """One synset of a ``data.*`` file.

    ``pos``: ``n``, ``v``, ``a`` (satellites included) or ``r``; ``offset``: its byte offset in its file, WordNet's id
    within the part of speech; ``lemmas``: lower-case, spaces for underscores, adjective markers removed; ``examples``:
    the gloss' quoted sentences (two words or more); ``hypernyms``: ``@`` and ``@i`` pointers as ``(pos, offset)``.
    """

    pos: str  # n, v, a (satellites included), r
    offset: int
    lemmas: tuple[str, ...]  # lower-case, spaces for underscores, adjective markers removed
    definition: str
    examples: tuple[str, ...]
    hypernyms: tuple[tuple[str, int], ...]  # "@" and "@i" pointers as (pos, offset)

    @property
    def key(self) -> tuple[str, int]:
        """``(pos, offset)``, the synset's key in :func:`parse_wordnet`'s dict."""
        return (self.pos, self.offset)


def split_gloss(gloss: str) -> tuple[str, tuple[str, ...]]:
    """A gloss (text after ``|``) as ``(definition, examples)``; attributions and one-word quotes are dropped.

    Example:
        >>> split_gloss('intended to deceive; "deceitful advertising"; "thin ice" - S.T.Coleridge')
        ('intended to deceive', ('deceitful advertising', 'thin ice'))
    """
    gloss = gloss.strip()
    m = re.search(r'(^|;\s*)"', gloss)
    if m is None:
        return gloss.rstrip("; ").strip(), ()
    definition = gloss[: m.start()].rstrip("; ").strip()
    examples = tuple(e.strip() for e in _EXAMPLE.findall(gloss[m.start() :]) if len(e.split()) >= 2)
    return definition, examples


def parse_data_lines(lines, pos: str, source: str = "data file") -> dict[tuple[str, int], Synset]:
    """``{(pos, offset): Synset}`` from the lines of one ``data.*`` file (licence lines start with two spaces).

    A line: ``offset lex_filenum ss_type w_cnt words... p_cnt pointers... | gloss``; a malformed one, or one with
    another number of words than it says, raises ValueError naming ``source`` and the line.
    """
    out = {}
    for lineno, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("  "):
            continue
        head, bar, gloss = line.partition(" | ")
        if not bar:
            head, gloss = line.rstrip(), ""
        f = head.split()
        try:
            offset = int(f[0])
            n_words = int(f[3], 16)
            words = f[4 : 4 + 2 * n_words : 2]
            i = 4 + 2 * n_words
            n_ptrs = int(f[i])
            hypernyms = []
            for j in range(n_ptrs):
                sym, target, tpos = f[i + 1 + 4 * j : i + 4 + 4 * j]
                if sym in ("@", "@i"):
                    hypernyms.append(("a" if tpos == "s" else tpos, int(target)))
        except (IndexError, ValueError):
            raise ValueError(
                f"{source}, line {lineno}: not a WordNet data line (offset lex_filenum ss_type "
                f"w_cnt words... p_cnt pointers... | gloss): {line[:80]!r}"
            ) from None
        if len(words) != n_words:
            raise ValueError(f"{source}, line {lineno}: says {n_words} words but has {len(words)}.")
        lemmas = tuple(dict.fromkeys(_ADJ_MARKER.sub("", w).replace("_", " ").lower() for w in words))
        definition, examples = split_gloss(gloss)
        out[(pos, offset)] = Synset(pos, offset, lemmas, definition, examples, tuple(hypernyms))
    return out


def parse_wordnet(folder, pos: tuple[str, ...] = ("n", "v", "a", "r")) -> dict[tuple[str, int], Synset]:
    """``{(pos, offset): Synset}`` of the ``data.*`` files of parts of speech ``pos`` in ``folder`` (``dict/``).

    FileNotFoundError when a ``data.*`` file is not in ``folder``.
    """
    folder = Path(folder)
    synsets = {}
    for p in pos:
        path = folder / POS_FILES[p]
        if not path.exists():
            raise FileNotFoundError(
                f"Expected the WordNet file {POS_FILES[p]} in {folder}. Point path=... at "
                "the folder holding data.noun, data.verb, data.adj and data.adv."
            )
        synsets.update(parse_data_lines(path.read_text(encoding="latin-1").splitlines(), p, path.name))
    return synsets


def senses_by_lemma(synsets: dict) -> dict[str, list[tuple[str, int]]]:
    """``lemma → [synset keys]`` in file order (all parts of speech) for ``{(pos, offset): Synset}``."""
    index = defaultdict(list)
    for key, s in synsets.items():
        for lemma in s.lemmas:
            index[lemma].append(key)
    return dict(index)


def _mentions(lemma: str, text: str) -> bool:
    """Does ``text`` use ``lemma`` (as a whole word or the start of one: "bank" in "banks", "banking")?"""
    return re.search(r"(?<![\w-])" + re.escape(lemma) + r"\w{0,3}(?![\w-])", text, re.IGNORECASE) is not None


def _lemma_examples(synsets, index, same_pos: bool):
    """``(lemma, synset key, example)`` for every example that uses a word with another sense."""
    rows, seen = [], set()
    for key, s in synsets.items():
        for example in s.examples:
            if example in seen:  # a few example sentences recur in several synsets: keep the first
                continue
            seen.add(example)
            for lemma in s.lemmas:
                others = [k for k in index[lemma] if k != key and (not same_pos or k[0] == key[0])]
                if others and _mentions(lemma, example):
                    rows.append((lemma, key, example))
                    break
    return rows


def _lemma_split(lemmas, seed: int, dev: float = 0.1, test: float = 0.1) -> dict[str, str]:
    """Each distinct lemma → "train" | "dev" | "test", seeded (sorted first, so file order does not matter)."""
    unique = sorted(set(lemmas))
    order = np.random.default_rng(seed).permutation(len(unique))
    n_test, n_dev = int(round(len(unique) * test)), int(round(len(unique) * dev))
    where = {}
    for rank, i in enumerate(order):
        where[unique[i]] = "test" if rank < n_test else "dev" if rank < n_test + n_dev else "train"
    return where


NEGATIVES = ("hard", "random", "mixed")


def pair_rows(synsets: dict, seed: int = SPLIT_SEED, negatives: str = "hard") -> list[dict]:
    """The rows of :func:`wordnet_pairs` before splitting: one positive and one negative per example.

    ``negatives`` (:data:`NEGATIVES`): ``"hard"``, drawn (seeded) from the word's other senses in its part of speech,
    else the others; ``"random"``, any other synset's definition; ``"mixed"``, either, half and half.
    A row: ``lemma``, ``definition``, ``example``, ``label`` (1 same synset, 0 another), ``synset``, ``example_synset``.
    """
    if negatives not in NEGATIVES:
        raise ValueError(f"negatives must be one of {NEGATIVES}, got {negatives!r}.")
    index = senses_by_lemma(synsets)
    rng = np.random.default_rng(seed)
    other_rng = np.random.default_rng(seed + 7)  # random negatives: the hard draws above stay the same
    keys = [k for k, s in synsets.items() if s.definition]
    rows = []
    for lemma, key, example in _lemma_examples(synsets, index, same_pos=False):
        others = [k for k in index[lemma] if k != key and synsets[k].definition]
        same_pos = [k for k in others if k[0] == key[0]]
        pool = same_pos or others
        if not pool or not synsets[key].definition:
            continue
        neg = pool[int(rng.integers(len(pool)))]
        if negatives == "random" or (negatives == "mixed" and other_rng.random() < 0.5):
            neg = key
            while neg == key or lemma in synsets[neg].lemmas:
                neg = keys[int(other_rng.integers(len(keys)))]
        rows.append(_pair_row(synsets, lemma, example, key, key, 1))
        rows.append(_pair_row(synsets, lemma, example, key, neg, 0))
    return rows


def _pair_row(synsets: dict, lemma: str, example: str, key, defined, label: int) -> dict:
    """One row of :func:`pair_rows`: ``example`` (of synset ``key``) with the definition of synset ``defined``."""
    return {
        "lemma": lemma,
        "definition": synsets[defined].definition,
        "example": example,
        "label": label,
        "synset": defined,
        "example_synset": key,
    }


def _to_dataset(name, task, rows, label_key, label_names, seed, info) -> TextDataset:
    where = _lemma_split([r["lemma"] for r in rows], seed)
    rng = np.random.default_rng(seed + 1)
    splits, lemma_counts = {}, {}
    for split in ("train", "dev", "test"):
        part = [r for r in rows if where[r["lemma"]] == split]
        part = [part[i] for i in rng.permutation(len(part))]
        labels = np.asarray([r[label_key] for r in part], dtype="int32" if task == "pairs" else "float32")
        splits[split] = Split(
            texts=[r["definition"] if task == "pairs" else r["example"] for r in part],
            texts_b=[r["example"] if task == "pairs" else r["definition"] for r in part],
            labels=labels,
        )
        lemma_counts[split] = len({r["lemma"] for r in part})
    return TextDataset(
        name,
        task,
        splits,
        label_names,
        licence=LICENCE,
        info={"split_by": "lemma (no word in two splits)", "lemmas": lemma_counts, **info},
    )


def wordnet_pairs(folder, seed: int = SPLIT_SEED, negatives: str = "hard") -> TextDataset:
    """Gloss-example matching from WordNet 3.0: does this example sentence illustrate this definition?

    Per example sentence using a word of its synset that has another sense: (definition, example) labelled 1 (``same``)
    and (another sense's definition, example) labelled 0 (``different``): balanced, every negative hard. ``texts`` are
    definitions, ``texts_b`` examples; split 80/10/10 by word, seeded; shuffled. From wordnet-base 3.0: 69,324 pairs
    (34,662 examples, 12,355 words), train 55,578 / dev 6,824 / test 6,922; no example in two splits, a definition can
    be (2,231 of 31,044). ``negatives="random"`` pairs the example with a random synset lacking the word (easy: the
    topic tells), ``"mixed"`` half each; a small model learns the mixed set from a few hundred pairs. A missing
    ``data.*`` file, a bad ``negatives`` or a malformed line raise FileNotFoundError or ValueError.
    """
    rows = pair_rows(parse_wordnet(folder), seed, negatives)
    what = {
        "hard": "another sense of the word",
        "random": "a random other synset",
        "mixed": "another sense of the word or a random synset (half each)",
    }[negatives]
    return _to_dataset(
        "wordnet_pairs",
        "pairs",
        rows,
        "label",
        ["different", "same"],
        seed,
        {"pairs": f"(definition, example sentence): 1 = same synset, 0 = {what}", "negatives": negatives},
    )


# --- Wu-Palmer similarity on the hypernym graph ---------------------------------------------------

_ROOT = ("*", 0)  # one virtual root above every top synset (verbs have hundreds of tops, nouns one)


class Hierarchy:
    """Hypernym paths of ``synsets`` (``@``, ``@i``; those outside it ignored), for Wu-Palmer similarity.

    ``depth(s)``: nodes on the shortest path from the virtual root (depth 1; noun ``entity`` 2).
    ``wup = 2·depth(c) / (d1 + d2 + 2·depth(c))``, ``c`` the deepest common hypernym (a synset is its own), ``d1``,
    ``d2`` the shortest distances to it. NLTK's ``wup_similarity`` with ``simulate_root=True``, but with shortest-path
    depths throughout (NLTK uses the longest path for ``c``).
    """

    def __init__(self, synsets: dict):
        self.synsets = synsets
        self._up: dict = {}
        self._depth: dict = {}

    def ancestors(self, key) -> dict:
        """``{hypernym (self and the virtual root included): shortest distance}`` of synset ``key`` (cached)."""
        if key in self._up:
            return self._up[key]
        dist, frontier = {key: 0}, [key]
        while frontier:
            nxt = []
            for k in frontier:
                s = self.synsets.get(k)
                parents = [h for h in s.hypernyms if h in self.synsets] if s is not None else []
                for p in parents or ([_ROOT] if k != _ROOT else []):
                    if p not in dist:
                        dist[p] = dist[k] + 1
                        nxt.append(p)
            frontier = nxt
        self._up[key] = dist
        return dist

    def depth(self, key) -> int:
        """The nodes on the shortest path from the virtual root to ``key`` (the root 1, noun ``entity`` 2)."""
        return self.ancestors(key)[_ROOT] + 1

    def wup(self, a, b) -> float:
        """The Wu-Palmer similarity of synsets ``a`` and ``b`` (0 < wup <= 1; 1.0 for the same synset)."""
        up_a, up_b = self.ancestors(a), self.ancestors(b)
        common = set(up_a) & set(up_b)
        c = max(common, key=lambda k: (self.depth(k), -(up_a[k] + up_b[k]), k))
        d = self.depth(c)
        return 2.0 * d / (up_a[c] + up_b[c] + 2.0 * d)


def graded_rows(synsets: dict, seed: int = SPLIT_SEED, others_per_example: int = 2, unrelated: int = 0) -> list[dict]:
    """The rows of :func:`wordnet_graded` before splitting (nouns and verbs only).

    Per example: ``others_per_example`` other senses of the word (seeded), and ``unrelated`` random same-part-of-speech
    synsets lacking the word. A row: ``lemma``, ``example``, ``definition``, ``score`` (5 x Wu-Palmer, 3 decimals),
    ``synset``, ``example_synset``.
    """
    synsets = {k: s for k, s in synsets.items() if k[0] in ("n", "v")}
    index = senses_by_lemma(synsets)
    tree = Hierarchy(synsets)
    rng = np.random.default_rng(seed)
    other_rng = np.random.default_rng(seed + 7)  # the unrelated picks: the sense picks above stay the same
    by_pos = {pos: [k for k, s in synsets.items() if k[0] == pos and s.definition] for pos in ("n", "v")}
    rows = []
    for lemma, key, example in _lemma_examples(synsets, index, same_pos=True):
        others = [k for k in index[lemma] if k != key and k[0] == key[0] and synsets[k].definition]
        if not others or not synsets[key].definition:
            continue
        picked = [others[i] for i in sorted(rng.permutation(len(others))[:others_per_example])]
        pool = by_pos[key[0]]
        for _ in range(unrelated):
            k = key
            while k == key or lemma in synsets[k].lemmas:
                k = pool[int(other_rng.integers(len(pool)))]
            picked.append(k)
        for k in [key] + picked:
            rows.append(
                {
                    "lemma": lemma,
                    "example": example,
                    "definition": synsets[k].definition,
                    "score": round(5.0 * tree.wup(key, k), 3),
                    "synset": k,
                    "example_synset": key,
                }
            )
    return rows


def wordnet_graded(folder, seed: int = SPLIT_SEED, unrelated: int = 0) -> TextDataset:
    """Graded sense similarity from WordNet 3.0 (nouns, verbs): a stand-in for STS-B's 0-5 scores.

    Per noun/verb example using a word of its synset with other senses in that part of speech: (example, own
    definition) scores 5.0; up to two other senses (seeded) score ``5 · wup`` (:class:`Hierarchy`). **Scores come from
    WordNet's hierarchy, not people**: taxonomic closeness (two kinds of container score high). ``texts`` are examples,
    ``texts_b`` definitions; float32 in [0, 5]; split 80/10/10 by word, seeded. From wordnet-base 3.0: 49,772 pairs
    (17,787 examples, 6,530 words), train 39,628 / dev 5,080 / test 5,064; 35.4% score 5.0, the rest in [0.43, 4.77]
    (mean 2.94). ``unrelated=n`` (0-2 through :func:`kit.data.load`) adds ``n`` pairs per example with a random synset
    lacking the word (mostly low), a range a small model learns from few pairs. FileNotFoundError: no ``data.noun`` or
    ``data.verb`` in ``folder``.
    """
    rows = graded_rows(parse_wordnet(folder, pos=("n", "v")), seed, unrelated=unrelated)
    return _to_dataset(
        "wordnet_graded",
        "pair_regression",
        rows,
        "score",
        None,
        seed,
        {
            "score": "5 x Wu-Palmer similarity of the example's synset and the defined synset "
            "(WordNet hypernym hierarchy, not human ratings)",
            "unrelated": unrelated,
        },
    )
