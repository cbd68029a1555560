"""WordNet from Debian's wordnet-base: the .deb reader, the data.* parser, the pair tasks built from it."""

import io
import os
from pathlib import Path

import numpy as np
import pytest

from kit.data.debian import deb_files, extract_deb, make_deb, read_ar
from kit.data.wordnet import (
    Hierarchy,
    _lemma_split,
    graded_rows,
    pair_rows,
    parse_data_lines,
    parse_wordnet,
    split_gloss,
    wordnet_graded,
    wordnet_pairs,
)

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend

DEB_URL = "https://deb.debian.org/debian/pool/main/w/wordnet/wordnet-base_3.0-37_all.deb"
DEB_SHA256 = "61060d960f9ada8fa120872312eccd3ecebfbab8c4579e4f5a74e1cf67620752"
HEADER = "  1 This software and database is being provided to you, the LICENSEE, by  \n"


def _line(offset, pos, words, gloss, pointers=(), lex=3):
    ptrs = " ".join(f"{sym} {target:08d} {tpos} 0000" for sym, target, tpos in pointers)
    body = f"{offset:08d} {lex:02d} {pos} {len(words):02x} " + " ".join(f"{w} 0" for w in words)
    body += f" {len(pointers):03d}" + (f" {ptrs}" if ptrs else "")
    if pos == "v":
        body += " 01 + 02 00"
    return body + f" | {gloss}  \n"


# --- the .deb reader ------------------------------------------------------------------------------


@pytest.mark.parametrize("compression", ["xz", "gz", "bz2", ""])
def test_deb_reader_round_trip(compression, tmp_path):
    files = {
        "usr/share/wordnet/data.noun": b"noun data",
        "usr/share/wordnet/sub/x.txt": b"odd length!",
        "usr/share/doc/other": b"not ours",
    }
    blob = make_deb(files, compression=compression)
    assert [n for n, _ in read_ar(io.BytesIO(blob))][0] == "debian-binary"
    assert deb_files(io.BytesIO(blob), "usr/share/wordnet/") == {"data.noun": b"noun data", "sub/x.txt": b"odd length!"}
    deb = tmp_path / "p.deb"
    deb.write_bytes(blob)
    out = extract_deb(deb, tmp_path / "wn", prefix="usr/share/wordnet/")
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == ["data.noun", "sub/x.txt"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("kit-deb-")]  # staging cleaned up


def test_deb_reader_errors(tmp_path):
    with pytest.raises(ValueError, match="Not an ar archive"):
        read_ar(io.BytesIO(b"PK\x03\x04 a zip"))
    blob = make_deb({"a": b"x"})
    with pytest.raises(ValueError, match="cut short|Truncated"):
        read_ar(io.BytesIO(blob[:-10]))
    deb = tmp_path / "p.deb"
    deb.write_bytes(blob)
    with pytest.raises(FileNotFoundError, match="Nothing under 'usr/share/wordnet/'"):
        extract_deb(deb, tmp_path / "out", prefix="usr/share/wordnet/")


# --- the parser on hand-written lines ----------------------------------------------------------------


def test_parse_data_lines_fields():
    text = (
        HEADER
        + _line(1740, "n", ["entity"], "that which exists")
        + _line(
            2137,
            "n",
            ["abstraction", "abstract_entity"],
            'a concept; "an abstraction"',
            [("@", 1740, "n"), ("~", 5, "n")],
        )
    )
    adj = _line(3700, "s", ["dissilient(a)"], 'bursting open; "a dissilient pod"', [("&", 3356, "a")], lex=0)
    syn = parse_data_lines(text.splitlines(), "n")
    assert len(syn) == 2  # the licence header is skipped
    s = syn[("n", 2137)]
    assert (s.lemmas, s.definition, s.examples, s.hypernyms) == (
        ("abstraction", "abstract entity"),
        "a concept",
        ("an abstraction",),
        (("n", 1740),),
    )
    a = parse_data_lines(adj.splitlines(), "a")[("a", 3700)]
    assert a.lemmas == ("dissilient",) and a.examples == ("a dissilient pod",)
    with pytest.raises(ValueError, match="data.noun, line 2: not a WordNet data line"):
        parse_data_lines(["00001740 03 n 01 entity 0 000 | ok", "garbage line | x"], "n", "data.noun")


@pytest.mark.parametrize(
    "gloss,want",
    [
        ("a dog", ("a dog", ())),
        ('a dog; "the dog barked"; "dogs; cats"', ("a dog", ("the dog barked", "dogs; cats"))),
        (
            'deceitful; "smooth as thin ice" - S.T.Coleridge; "a fraudulent scheme"',
            ("deceitful", ("smooth as thin ice", "a fraudulent scheme")),
        ),
        ('"only an example here"', ("", ("only an example here",))),
        ('the letter "a"; "she wrote an a"', ('the letter "a"', ("she wrote an a",))),
    ],
)
def test_split_gloss(gloss, want):
    assert split_gloss(gloss) == want


def test_wu_palmer_hand_worked():
    # entity <- physical <- object <- whole <- {artifact, organism}; two unrelated verb tops
    lines = [
        _line(1, "n", ["entity"], "e"),
        _line(2, "n", ["physical"], "p", [("@", 1, "n")]),
        _line(3, "n", ["object"], "o", [("@", 2, "n")]),
        _line(4, "n", ["whole"], "w", [("@", 3, "n")]),
        _line(5, "n", ["artifact"], "a", [("@", 4, "n")]),
        _line(6, "n", ["organism"], "o", [("@i", 4, "n")]),
    ]
    syn = parse_data_lines("".join(lines).splitlines(), "n")
    syn.update(parse_data_lines((_line(7, "v", ["run"], "r") + _line(8, "v", ["think"], "t")).splitlines(), "v"))
    h = Hierarchy(syn)
    assert h.depth(("n", 1)) == 2 and h.depth(("n", 4)) == 5  # the virtual root has depth 1
    assert h.wup(("n", 5), ("n", 6)) == pytest.approx(2 * 5 / (1 + 1 + 2 * 5))
    assert h.wup(("n", 5), ("n", 5)) == 1.0
    assert h.wup(("n", 5), ("n", 2)) == pytest.approx(2 * 3 / (3 + 0 + 2 * 3))
    assert h.wup(("v", 7), ("v", 8)) == pytest.approx(0.5)  # only the virtual root in common


def _toy_wordnet(folder: Path, n_words=40):
    """A WordNet-format folder: n_words nouns with two senses each, hypernyms, examples using the word."""
    noun, verb = [HEADER, _line(1, "n", ["entity"], "what exists")], [HEADER]
    off = 10
    for i in range(n_words):
        word = f"word{i:02d}"
        noun.append(
            _line(off, "n", [word, f"syn{i:02d}"], f'first sense of {word}; "the {word} is here"', [("@", 1, "n")])
        )
        noun.append(
            _line(
                off + 1, "n", [word], f'second sense of {word}; "a {word}s example"; "{word} again"', [("@", off, "n")]
            )
        )
        off += 2
    verb.append(_line(5, "v", ["word00"], 'to say a word; "they word00 it"'))
    (folder / "data.noun").write_text("".join(noun), encoding="latin-1")
    (folder / "data.verb").write_text("".join(verb), encoding="latin-1")
    (folder / "data.adj").write_text(HEADER, encoding="latin-1")
    (folder / "data.adv").write_text(HEADER, encoding="latin-1")
    return folder


def test_pairs_on_toy_wordnet(tmp_path):
    folder = _toy_wordnet(tmp_path)
    rows = pair_rows(parse_wordnet(folder))
    assert len(rows) == 2 * (3 * 40 + 1)  # each example: one positive, one hard negative
    for pos, neg in zip(rows[::2], rows[1::2]):
        assert pos["label"] == 1 and neg["label"] == 0 and pos["example"] == neg["example"]
        assert pos["synset"] == pos["example_synset"] != neg["synset"]
        assert pos["lemma"] in pos["example"] and "sense of" in pos["definition"] or pos["lemma"] == "word00"
        assert '"' not in pos["definition"]  # the examples are not part of the definition text
    ds = wordnet_pairs(folder)
    assert ds.task == "pairs" and ds.label_names == ["different", "same"]
    for split in ("train", "dev", "test"):
        y = ds[split].y
        assert (y == 1).sum() == (y == 0).sum()  # balanced within every split
    assert sum(ds.sizes().values()) == len(rows)
    where = _lemma_split([r["lemma"] for r in rows], 1234)
    words = {k: {w for w, s in where.items() if s == k} for k in ("train", "dev", "test")}
    assert not (words["train"] & words["dev"]) and not (words["train"] & words["test"])
    again = wordnet_pairs(folder)
    assert again.train.texts == ds.train.texts and again.test.texts_b == ds.test.texts_b  # deterministic


def test_graded_on_toy_wordnet(tmp_path):
    folder = _toy_wordnet(tmp_path)
    rows = graded_rows(parse_wordnet(folder, pos=("n", "v")))
    own = [r for r in rows if r["synset"] == r["example_synset"]]
    other = [r for r in rows if r["synset"] != r["example_synset"]]
    assert all(r["score"] == 5.0 for r in own)
    # sense 2 is a hyponym of sense 1: depths 3 and 4 below the virtual root, wup = 2*3/(1+6) -> 5*6/7
    assert {round(r["score"], 3) for r in other} == {round(5 * 6 / 7, 3)}
    ds = wordnet_graded(folder)
    assert ds.task == "pair_regression" and ds.train.y.dtype == np.float32
    assert 0.0 <= min(ds.train.y) and max(ds.train.y) == 5.0


# --- the real package --------------------------------------------------------------------------------


def _sha(path):
    from kit.data.sources import sha256_of

    return sha256_of(Path(path))


@pytest.fixture(scope="module")
def wordnet_dir(tmp_path_factory):
    from kit import config
    from kit.data.sources import download

    candidates = [
        config.data_dir() / "downloads" / "wordnet-base_3.0-37_all.deb",
        Path("/tmp/wordnet-base_1%3a3.0-37_all.deb"),
    ]
    deb = next((p for p in candidates if p.exists() and _sha(p) == DEB_SHA256), None)
    if deb is None:
        if os.environ.get("KIT_OFFLINE"):
            pytest.skip("wordnet-base .deb not cached and KIT_OFFLINE is set")
        try:
            deb = download(
                DEB_URL, tmp_path_factory.mktemp("deb") / "wordnet-base_3.0-37_all.deb", DEB_SHA256, progress=False
            )
        except OSError as exc:  # no network
            pytest.skip(f"cannot download wordnet-base: {exc}")
    return extract_deb(deb, tmp_path_factory.mktemp("wordnet") / "wn", prefix="usr/share/wordnet/")


def test_real_deb_contents(wordnet_dir):
    names = sorted(p.name for p in wordnet_dir.iterdir())
    assert {"data.noun", "data.verb", "data.adj", "data.adv", "index.noun"} <= set(names)
    syn = parse_wordnet(wordnet_dir)
    counts = {p: sum(k[0] == p for k in syn) for p in "nvar"}
    assert counts == {"n": 82115, "v": 13767, "a": 18156, "r": 3621}  # WordNet 3.0's published synset counts
    dog = syn[("n", 2084071)]
    assert dog.lemmas[:2] == ("dog", "domestic dog") and dog.examples == ("the dog barked all night",)
    assert Hierarchy(syn).wup(("n", 2084071), ("n", 2121620)) == pytest.approx(0.8667, abs=1e-4)  # dog, cat


def test_real_wordnet_pairs_and_graded(wordnet_dir):
    ds = wordnet_pairs(wordnet_dir)
    assert ds.sizes() == {"train": 55578, "dev": 6824, "test": 6922}
    for split in ds.splits.values():
        assert (split.y == 1).sum() == (split.y == 0).sum()
    examples = {k: set(v.texts_b) for k, v in ds.splits.items()}
    assert not (examples["train"] & examples["test"]) and not (examples["train"] & examples["dev"])
    g = wordnet_graded(wordnet_dir)
    assert g.sizes() == {"train": 39628, "dev": 5080, "test": 5064}
    y = np.concatenate([s.y for s in g.splits.values()])
    assert 0.4 < y.min() and y.max() == 5.0 and 0.3 < (y == 5.0).mean() < 0.4


def test_random_and_mixed_negatives_and_unrelated_pairs(tmp_path):
    folder = _toy_wordnet(tmp_path)
    syn = parse_wordnet(folder)
    hard = pair_rows(syn)
    assert pair_rows(syn, negatives="hard") == hard  # the default is unchanged
    for mode in ("random", "mixed"):
        rows = pair_rows(syn, negatives=mode)
        assert [r["example"] for r in rows] == [r["example"] for r in hard]  # same examples, same positives
        negs = [r for r in rows if r["label"] == 0]
        other_word = [r["lemma"] not in syn[r["synset"]].lemmas for r in negs]
        assert all(other_word) if mode == "random" else 0.2 < np.mean(other_word) < 0.8
        assert all(r["synset"] != r["example_synset"] for r in negs)
    with pytest.raises(ValueError, match="negatives must be one of"):
        pair_rows(syn, negatives="easy")
    assert wordnet_pairs(folder, negatives="random").info["negatives"] == "random"
    base = graded_rows(parse_wordnet(folder, pos=("n", "v")))
    more = graded_rows(parse_wordnet(folder, pos=("n", "v")), unrelated=1)
    assert len(more) > len(base)
    assert [r for r in more if r["lemma"] in syn[r["synset"]].lemmas] == base  # the word's own senses unchanged
    extra = [r for r in more if r["lemma"] not in syn[r["synset"]].lemmas]
    assert extra and all(r["score"] < 5.0 for r in extra)
