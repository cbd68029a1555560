"""Your own tagged data: a CoNLL-form file (or folder) into notebook 03's tagging task, messy files included."""

import codecs

import pytest

from kit.data import ConllFormat, read

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend

SENTENCE = "EU NNP B-NP B-ORG\nrejects VBZ B-VP O\nGerman JJ B-NP B-MISC\ncall NN I-NP O\n. . O O\n"


def _conll(n=40, sep=" ", newline="\n", docstart=True):
    body = "".join(
        SENTENCE.replace(" ", sep).replace("German", f"German{i}").replace("\n", newline) + newline for i in range(n)
    )
    return ("-DOCSTART- -X- -X- O" + newline * 2 if docstart else "") + body


def test_a_file_is_split_by_sentences_with_its_tags(tmp_path):
    path = tmp_path / "mine.conll"
    path.write_text(_conll())
    ds = read(path, verbose=False)
    assert ds.task == "tagging" and ds.label_names == ["B-MISC", "B-ORG", "O"]
    assert ds.sizes() == {"train": 32, "dev": 4, "test": 4}
    assert ds.info["entities"] == {"train": 64, "dev": 8, "test": 8}  # notebook 03's data table shows them
    words = [w for s in ds.splits.values() for w in s.texts]
    assert all(len(w) == 5 for w in words) and len({w[2] for w in words}) == 40  # every sentence once
    tags = ds.train.labels[0]
    assert [ds.label_names[t] for t in tags] == ["B-ORG", "O", "B-MISC", "O", "O"]
    chunks = read(path, fmt=ConllFormat(tag_column=2), verbose=False)  # another column: the chunk tags
    assert chunks.label_names == ["B-NP", "B-VP", "I-NP", "O"]


@pytest.mark.parametrize("form", ["tabs and CRLF", "UTF-8 BOM", "UTF-16", "no -DOCSTART-", "trailing blank lines"])
def test_messy_files_read_the_same(tmp_path, form):
    clean = read(_write(tmp_path / "clean.conll", _conll().encode()), verbose=False)
    raw = {
        "tabs and CRLF": _conll(sep="\t", newline="\r\n").encode(),
        "UTF-8 BOM": codecs.BOM_UTF8 + _conll().encode(),
        "UTF-16": _conll().encode("utf-16"),
        "no -DOCSTART-": _conll(docstart=False).encode(),
        "trailing blank lines": (_conll() + "\n\n\n  \n").encode(),
    }[form]
    ds = read(_write(tmp_path / "messy.conll", raw), verbose=False)
    assert ds.label_names == clean.label_names and ds.sizes() == clean.sizes()
    assert ds.train.texts == clean.train.texts and ds.test.labels == clean.test.labels


def test_a_folder_keeps_its_splits(tmp_path):
    for name, n in (("train.txt", 30), ("valid.txt", 5), ("test.txt", 6)):
        (tmp_path / name).write_text(_conll(n))
    assert read(tmp_path, task="tagging", verbose=False).sizes() == {"train": 30, "dev": 5, "test": 6}
    (tmp_path / "valid.txt").unlink()
    with pytest.raises(FileNotFoundError, match=r"none for dev \(eng.testa or valid.txt"):
        read(tmp_path, task="tagging", verbose=False)


BAD = {  # name: (file bytes, keyword arguments, what the error must say)
    "a token with a space": (
        _conll().replace("rejects VBZ", "re jects VBZ", 1).encode(),
        {},
        "line 4: expected 4 columns",
    ),
    "a line without its tag": (_conll().replace("call NN I-NP O", "call NN I-NP", 1).encode(), {}, "got 3"),
    "one tag only": ("".join(f"w{i} O\n\n" for i in range(30)).encode(), {}, "needs at least two tags"),
    "the token column as tags": (_conll().encode(), {"tag_column": 0}, "is the token column"),
    "a column too far": (_conll().encode(), {"tag_column": 7}, "does not exist"),
    "latin-1 bytes": (_conll().replace("German", "M\xfcnchen").encode("latin-1"), {}, "--encoding cp1252"),
    "an empty file": (b"\n\n", {}, "holds no sentences"),
    "too few sentences": (_conll(3).encode(), {}, "a split would be empty"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_files_stop_with_the_line_and_the_fix(tmp_path, case):
    content, kwargs, message = BAD[case]
    with pytest.raises((ValueError, FileNotFoundError), match=message.replace("(", r"\(").replace(")", r"\)")):
        read(_write(tmp_path / "bad.conll", content), fmt=ConllFormat(**kwargs), verbose=False)


def test_latin1_reads_with_its_encoding(tmp_path):
    path = _write(tmp_path / "l.conll", _conll().replace("German", "M\xfcnchen").encode("latin-1"))
    assert read(path, fmt=ConllFormat(encoding="latin-1"), verbose=False).train.texts[0][2].startswith("M\xfcnchen")


def test_kit_run_03_takes_a_conll_file_and_01_refuses_it(tmp_path, capsys, kit_run_reads):
    """`kit run 03 --data my.conll` sets the tagging task and its column; other notebooks stop before a kernel."""
    from kit.cli import main

    seen = kit_run_reads
    path = _write(tmp_path / "mine.txt", _conll().encode())
    out = ["--out", str(tmp_path / "o")]
    assert main(["run", "03", "--data", str(path), "--task", "tagging", "--tag-column", "2", *out]) == 0
    assert seen["KIT_TASK"] == "tagging" and seen["KIT_TAG_COLUMN"] == "2"
    assert seen["ds"].task == "tagging" and seen["ds"].label_names == ["B-NP", "B-VP", "I-NP", "O"]
    conll = _write(tmp_path / "mine.conll", _conll().encode())  # the name says it: no --task needed
    assert main(["run", "03", "--data", str(conll), *out]) == 0 and seen["ds"].label_names[0] == "B-MISC"
    assert main(["run", "01", "--data", str(conll), *out]) == 1
    assert "Notebook 01_pretrain_or_not needs classification data" in capsys.readouterr().err
    assert main(["run", "03", "--data", str(conll), "--text", "t", "--label", "l", *out]) == 1
    assert "--text, --label do not apply to tagged tokens" in capsys.readouterr().err
    csv = _write(tmp_path / "m.csv", b"t,l\na,b\n")
    assert main(["run", "03", "--data", str(csv), "--text", "t", "--label", "l", "--tag-column", "1", *out]) == 1
    assert "--tag-column is for tagged tokens" in capsys.readouterr().err


def _write(path, content: bytes):
    path.write_bytes(content)
    return path
