"""kit.data.from_csv: your own data, same type as the built-ins, clear errors."""

import numpy as np
import pytest

from kit.data import TextDataset, from_csv


def _file(tmp_path, text, name="mine.csv"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def _rows(n, fmt):
    return "\n".join(fmt(i) for i in range(n)) + "\n"


def test_single_text_classification(tmp_path):
    p = _file(tmp_path, "review,stars\n" + _rows(50, lambda i: f'"text {i}, with comma",{"pos" if i % 2 else "neg"}'))
    ds = from_csv(p, text="review", label="stars")
    assert isinstance(ds, TextDataset) and ds.task == "classification"
    assert ds.label_names == ["neg", "pos"] and ds.sizes() == {"train": 40, "dev": 5, "test": 5}
    assert ds.train.texts[0].startswith("text ") and "," in ds.train.texts[0]


def test_pairs_and_given_label_order(tmp_path):
    p = _file(tmp_path, "q1\tq2\tdup\n" + _rows(30, lambda i: f"a {i}\tb {i}\t{'yes' if i % 3 else 'no'}"), "p.tsv")
    ds = from_csv(p, text_a="q1", text_b="q2", label="dup", label_names=["no", "yes"])
    assert ds.task == "pairs" and isinstance(ds.train.x, tuple)
    assert ds.train.texts[0].startswith("a ") and ds.train.texts_b[0].startswith("b ")


def test_regression_inferred(tmp_path):
    p = _file(tmp_path, "text,score\n" + _rows(30, lambda i: f"t{i},{i / 7:.3f}"))
    ds = from_csv(p, text="text", label="score")
    assert ds.task == "regression" and ds.train.y.dtype == np.float32


def test_split_column(tmp_path):
    split = ["train"] * 6 + ["dev"] * 2 + ["test"] * 2
    p = _file(tmp_path, "text,label,split\n" + _rows(10, lambda i: f"t{i},{i % 2},{split[i]}"))
    ds = from_csv(p, text="text", label="label", split="split")
    assert ds.sizes() == {"train": 6, "dev": 2, "test": 2}


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="No such file"):
        from_csv(tmp_path / "nope.csv", text="t", label="l")


def test_malformed_row_names_the_line(tmp_path):
    p = _file(tmp_path, "text,label\nok,1\nok,0\ntoo,many,fields\n")
    with pytest.raises(ValueError, match=r"mine.csv, line 4: expected 2 fields.*Quote fields"):
        from_csv(p, text="text", label="label")


def test_unknown_column_lists_columns(tmp_path):
    p = _file(tmp_path, "review,stars\na,1\n")
    with pytest.raises(KeyError, match=r"no column 'text'.*\['review', 'stars'\]"):
        from_csv(p, text="text", label="stars")


def test_unknown_label(tmp_path):
    p = _file(tmp_path, "text,label\n" + _rows(20, lambda i: f"t{i},{'pos' if i != 13 else 'meh'}"))
    with pytest.raises(ValueError, match=r"data row 14: unknown label 'meh'"):
        from_csv(p, text="text", label="label", label_names=["neg", "pos"])


def test_empty_label(tmp_path):
    p = _file(tmp_path, "text,label\na,1\nb,\n")
    with pytest.raises(ValueError, match="line 3: empty label"):
        from_csv(p, text="text", label="label")


def test_empty_file_and_no_rows(tmp_path):
    with pytest.raises(ValueError, match="is empty"):
        from_csv(_file(tmp_path, ""), text="text", label="label")
    with pytest.raises(ValueError, match="no data rows"):
        from_csv(_file(tmp_path, "text,label\n"), text="text", label="label")


def test_empty_split_is_refused(tmp_path):
    p = _file(tmp_path, "text,label\na,1\nb,0\nc,1\n")
    with pytest.raises(ValueError, match="would be empty"):
        from_csv(p, text="text", label="label", dev=0.1, test=0.1)
    split = ["train", "train", "dev"]
    p = _file(tmp_path, "text,label,s\n" + _rows(3, lambda i: f"t{i},{i % 2},{split[i]}"))
    with pytest.raises(ValueError, match="split 'test' is empty"):
        from_csv(p, text="text", label="label", split="s")


def test_pair_needs_both_columns(tmp_path):
    with pytest.raises(ValueError, match="both text_a"):
        from_csv(_file(tmp_path, "a,b,l\n"), text_a="a", label="l")
