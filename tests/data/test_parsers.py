"""Loaders for the papers' own data, on small files written in their canonical formats."""

import csv

import numpy as np
import pytest

import kit.data as kd

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend


@pytest.fixture(autouse=True)
def _cache(monkeypatch, tmp_path):
    monkeypatch.setenv("KIT_DATA_DIR", str(tmp_path / "cache"))


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_glue_sst2(tmp_path):
    rows = "".join(f"sentence number {i} is {'good' if i % 2 else 'bad'}\t{i % 2}\n" for i in range(60))
    _write(tmp_path / "SST-2" / "train.tsv", "sentence\tlabel\n" + rows)
    _write(tmp_path / "SST-2" / "dev.tsv", "sentence\tlabel\na fine film\t1\na dull film\t0\n")
    ds = kd.load("glue_sst2", path=tmp_path / "SST-2")
    assert ds.sizes() == {"train": 57, "dev": 3, "test": 2}
    assert ds.test.texts == ["a fine film", "a dull film"] and ds.test.y.tolist() == [1, 0]


def test_glue_qqp_pairs(tmp_path):
    head = "id\tqid1\tqid2\tquestion1\tquestion2\tis_duplicate\n"
    rows = "".join(f"{i}\t{2 * i}\t{2 * i + 1}\tq{i} a?\tq{i} b?\t{i % 2}\n" for i in range(40))
    _write(tmp_path / "QQP" / "train.tsv", head + rows)
    _write(tmp_path / "QQP" / "dev.tsv", head + "1\t1\t2\tHow?\tWhy?\t0\n")
    ds = kd.load("glue_qqp", path=tmp_path / "QQP")
    assert ds.task == "pairs" and ds.test.x == (["How?"], ["Why?"])


def test_glue_stsb_regression_and_bad_row(tmp_path):
    head = "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore\n"
    row = "0\tmain\tf\t2012\t0\ts\ts\tA man plays.\tA man is playing.\t{}\n"
    _write(tmp_path / "STS-B" / "train.tsv", head + "".join(row.format(i / 10) for i in range(50)))
    _write(tmp_path / "STS-B" / "dev.tsv", head + row.format(4.2))
    ds = kd.load("glue_stsb", path=tmp_path / "STS-B")
    assert ds.task == "pair_regression" and ds.test.y.dtype == np.float32 and ds.test.y[0] == pytest.approx(4.2)
    _write(tmp_path / "STS-B" / "dev.tsv", head + "0\tmain\tonly three\tfields\n")
    with pytest.raises(ValueError, match=r"dev.tsv, line 2: expected 10 tab-separated"):
        kd.load("glue_stsb", path=tmp_path / "STS-B")


def test_sst5_trees(tmp_path):
    tree = (
        "(3 (2 It) (4 (4 (2 's) (4 (3 (2 a) (4 (3 lovely) (2 film))) "
        "(3 (2 with) (4 (3 (3 lovely) (2 performances))))))) (2 .)))\n"
    )
    for split in ("train", "dev", "test"):
        _write(tmp_path / "trees" / f"{split}.txt", tree + "(0 (0 Awful) (1 -LRB-really-RRB-))\n")
    ds = kd.load("sst5", path=tmp_path)
    assert ds.train.texts[0].startswith("It 's a lovely film") and ds.train.y.tolist() == [3, 0]
    assert ds.train.texts[1] == "Awful (really)"
    _write(tmp_path / "trees" / "dev.txt", "not a tree\n")
    with pytest.raises(ValueError, match="dev.txt, line 1: not an SST tree"):
        kd.load("sst5", path=tmp_path)


def test_imdb_folders(tmp_path):
    for split in ("train", "test"):
        for lab in ("pos", "neg"):
            for i in range(12):
                _write(tmp_path / "aclImdb" / split / lab / f"{i}_7.txt", f"{lab} review {i}<br />more")
    ds = kd.load("imdb", path=tmp_path)
    assert ds.sizes() == {"train": 22, "dev": 2, "test": 24}
    assert "<br />" not in ds.train.texts[0]
    assert set(ds.test.y.tolist()) == {0, 1}


def test_conll2003(tmp_path):
    doc = (
        "-DOCSTART- -X- -X- O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\nGerman JJ B-NP B-MISC\n\nPeter NNP B-NP B-PER\n"
    )
    for f in ("eng.train", "eng.testa", "eng.testb"):
        _write(tmp_path / f, doc)
    ds = kd.load("conll2003", path=tmp_path)
    assert ds.train.texts == [["EU", "rejects", "German"], ["Peter"]]
    assert [[ds.label_names[i] for i in row] for row in ds.train.labels] == [["B-ORG", "O", "B-MISC"], ["B-PER"]]
    _write(tmp_path / "eng.testb", doc + "broken line\n")
    with pytest.raises(ValueError, match="eng.testb, line 8: expected 4"):
        kd.load("conll2003", path=tmp_path)


def _csv(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        csv.writer(f, quoting=csv.QUOTE_ALL).writerows(rows)


def test_ag_news_csv(tmp_path):
    _csv(tmp_path / "train.csv", [[str(1 + i % 4), f"Title {i}", f"Body, with comma {i}"] for i in range(80)])
    _csv(tmp_path / "test.csv", [["3", "Wall St.", "Stocks rose."]])
    ds = kd.load("ag_news", path=tmp_path)
    assert ds.test.texts == ["Wall St. Stocks rose."] and ds.label_names[ds.test.y[0]] == "Business"
    _csv(tmp_path / "test.csv", [["9", "x", "y"]])
    with pytest.raises(ValueError, match="class 9 outside 1..4"):
        kd.load("ag_news", path=tmp_path)


def test_yelp_csv(tmp_path):
    _csv(tmp_path / "train.csv", [[str(1 + i % 5), f"review {i}\\nline two"] for i in range(100)])
    _csv(tmp_path / "test.csv", [["5", "Great tacos!"]])
    ds = kd.load("yelp_full", path=tmp_path)
    assert ds.num_classes == 5 and ds.test.y.tolist() == [4]
    assert "\\n" not in ds.train.texts[0]
    _csv(tmp_path / "test.csv", [["stars", "text"]])
    with pytest.raises(ValueError, match="no header row"):
        kd.load("yelp_full", path=tmp_path)


def test_missing_file_in_folder(tmp_path):
    (tmp_path / "SST-2").mkdir()
    with pytest.raises(FileNotFoundError, match="train.tsv"):
        kd.load("glue_sst2", path=tmp_path / "SST-2")


def test_glue_line_separator_inside_a_sentence(tmp_path):
    """str.splitlines() would cut this row at U+2028; a TSV record ends at a line feed only."""
    from kit.data.parsers import parse_glue_tsv

    p = tmp_path / "train.tsv"
    p.write_text("sentence\tlabel\nfirst half\u2028second half\t1\r\nanother\x85one\t0\n", encoding="utf-8")
    a, b, y = parse_glue_tsv(p, "sst2")
    assert a == ["first half\u2028second half", "another\x85one"] and y.tolist() == [1, 0] and b is None


def test_select_two_classes():
    from kit.data import Split, TextDataset

    s = Split(texts=list("abcdef"), labels=[0, 1, 2, 0, 1, 2])
    ds = TextDataset("t", "classification", {"train": s, "test": s}, label_names=["x", "y", "z"])
    two = ds.select_classes(["y", "x"])
    assert two.label_names == ["y", "x"] and two.train.texts == ["a", "b", "d", "e"]
    assert two.train.labels.tolist() == [1, 0, 1, 0]
    with pytest.raises(ValueError, match="no class \\['w'\\]"):
        ds.select_classes(["w"])
