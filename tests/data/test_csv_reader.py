"""kit.data.read on CSV and TSV files: your own data, same type as the built-ins, clear errors."""

import csv
import gzip

import numpy as np
import pytest

from kit.data import Columns, CsvFormat, Splits, TextDataset, read

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend


def _file(tmp_path, text, name="mine.csv"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def _rows(n, fmt):
    return "\n".join(fmt(i) for i in range(n)) + "\n"


def test_single_text_classification(tmp_path):
    p = _file(tmp_path, "review,stars\n" + _rows(50, lambda i: f'"text {i}, with comma",{"pos" if i % 2 else "neg"}'))
    ds = read(p, Columns(text="review", label="stars"))
    assert isinstance(ds, TextDataset) and ds.task == "classification"
    assert ds.label_names == ["neg", "pos"] and ds.sizes() == {"train": 40, "dev": 5, "test": 5}
    assert ds.train.texts[0].startswith("text ") and "," in ds.train.texts[0]


def test_pairs_and_given_label_order(tmp_path):
    p = _file(tmp_path, "q1\tq2\tdup\n" + _rows(30, lambda i: f"a {i}\tb {i}\t{'yes' if i % 3 else 'no'}"), "p.tsv")
    ds = read(p, Columns(text_a="q1", text_b="q2", label="dup", label_names=["no", "yes"]))
    assert ds.task == "pairs" and isinstance(ds.train.x, tuple)
    assert ds.train.texts[0].startswith("a ") and ds.train.texts_b[0].startswith("b ")


def test_regression_inferred(tmp_path):
    p = _file(tmp_path, "text,score\n" + _rows(30, lambda i: f"t{i},{i / 7:.3f}"))
    ds = read(p, Columns(text="text", label="score"))
    assert ds.task == "regression" and ds.train.y.dtype == np.float32


def test_split_column(tmp_path):
    split = ["train"] * 6 + ["dev"] * 2 + ["test"] * 2
    p = _file(tmp_path, "text,label,split\n" + _rows(10, lambda i: f"t{i},{i % 2},{split[i]}"))
    ds = read(p, Columns(text="text", label="label"), splits=Splits(column="split"))
    assert ds.sizes() == {"train": 6, "dev": 2, "test": 2}


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="No such file"):
        read(tmp_path / "nope.csv", Columns(text="t", label="l"))


def test_malformed_row_names_the_line(tmp_path):
    p = _file(tmp_path, "text,label\nok,1\nok,0\ntoo,many,fields\n")
    with pytest.raises(ValueError, match=r"mine.csv, line 4: expected 2 fields.*Quote fields"):
        read(p, Columns(text="text", label="label"))


def test_unknown_column_lists_columns(tmp_path):
    p = _file(tmp_path, "review,stars\na,1\n")
    with pytest.raises(KeyError, match=r"no column 'text'.*\['review', 'stars'\]"):
        read(p, Columns(text="text", label="stars"))


def test_unknown_label(tmp_path):
    p = _file(tmp_path, "text,label\n" + _rows(20, lambda i: f"t{i},{'pos' if i != 13 else 'meh'}"))
    with pytest.raises(ValueError, match=r"line 15: unknown label 'meh'"):
        read(p, Columns(text="text", label="label", label_names=["neg", "pos"]))


def test_empty_label(tmp_path):
    p = _file(tmp_path, "text,label\na,1\nb,\n")
    with pytest.raises(ValueError, match=r"line 3: the label in column 'label' is missing \(''\)"):
        read(p, Columns(text="text", label="label"))


def test_empty_file_and_no_rows(tmp_path):
    with pytest.raises(ValueError, match="is empty"):
        read(_file(tmp_path, ""), Columns(text="text", label="label"))
    with pytest.raises(ValueError, match="no data rows"):
        read(_file(tmp_path, "text,label\n"), Columns(text="text", label="label"))


def test_empty_split_is_refused(tmp_path):
    p = _file(tmp_path, "text,label\na,1\nb,0\nc,1\n")
    with pytest.raises(ValueError, match="would be empty"):
        read(p, Columns(text="text", label="label"), splits=Splits(dev=0.1, test=0.1))
    split = ["train", "train", "dev"]
    p = _file(tmp_path, "text,label,s\n" + _rows(3, lambda i: f"t{i},{i % 2},{split[i]}"))
    with pytest.raises(ValueError, match="split 'test' is empty"):
        read(p, Columns(text="text", label="label"), splits=Splits(column="s"))


def test_pair_needs_both_columns(tmp_path):
    with pytest.raises(ValueError, match="both text_a"):
        read(_file(tmp_path, "a,b,l\n"), Columns(text_a="a", label="l"))


QUOTES = [  # texts as people write them: line breaks, commas, quotes, CRLF, tabs, unicode, edges
    "Be yourself;\neveryone else is already taken.",
    'He said, "a\nlaw is a law",\r\nand left.',
    "  leading and trailing spaces  ",
    "tabs\tinside, and ;semicolons; and |pipes|",
    "Ünïcödé — “curly” quotes\n\n\nand blank lines",
    "a single line",
]


def _write_csv(path, rows, header=("quote", "category"), **kw):
    with open(path, "w", newline="", encoding=kw.pop("encoding", "utf-8")) as f:
        w = csv.writer(f, **kw)
        w.writerow(header)
        w.writerows(rows)
    return path


def test_multiline_quoted_texts_round_trip_exactly(tmp_path):
    """The issue's bug: line breaks inside quoted fields were deleted ("a\nlaw" -> "alaw")."""
    texts = [QUOTES[i % len(QUOTES)] + f" #{i}" for i in range(60)]
    rows = [(t, ["love", "life", "truth"][i % 3]) for i, t in enumerate(texts)]
    for name, kw in (("crlf.csv", {}), ("lf.csv", {"lineterminator": "\n"}), ("all.csv", {"quoting": csv.QUOTE_ALL})):
        ds = read(_write_csv(tmp_path / name, rows, **kw), Columns(text="quote", label="category"), verbose=False)
        got = sorted(t for s in ds.splits.values() for t in s.texts)
        assert got == sorted(texts), name
        back = {t: ds.label_names[y] for s in ds.splits.values() for t, y in zip(s.texts, s.labels)}
        assert back == dict(rows)


def test_bom_utf16_and_other_encodings(tmp_path):
    rows = [(f"café {i}\nnaïve", "a" if i % 2 else "b") for i in range(20)]
    with open(tmp_path / "bom.csv", "w", newline="", encoding="utf-8-sig") as f:
        csv.writer(f).writerows([("quote", "category"), *rows])
    ds = read(tmp_path / "bom.csv", Columns(text="quote", label="category"), verbose=False)
    assert ds.info["encoding"] == "utf-8-sig" and sorted(ds.label_names) == ["a", "b"]
    _write_csv(tmp_path / "u16.csv", rows, encoding="utf-16")
    assert (
        read(tmp_path / "u16.csv", Columns(text="quote", label="category"), verbose=False).info["encoding"] == "utf-16"
    )
    _write_csv(tmp_path / "win.csv", rows, encoding="cp1252")
    with pytest.raises(ValueError, match=r"win.csv, line 2: byte .* is not valid utf-8.*encoding='cp1252'"):
        read(tmp_path / "win.csv", Columns(text="quote", label="category"))
    ds = read(
        tmp_path / "win.csv", Columns(text="quote", label="category"), CsvFormat(encoding="cp1252"), verbose=False
    )
    assert any("café" in t for t in ds.train.texts)
    with pytest.raises(ValueError, match="Unknown encoding 'klingon'"):
        read(tmp_path / "win.csv", Columns(text="quote", label="category"), CsvFormat(encoding="klingon"))


def test_not_a_csv(tmp_path):
    (tmp_path / "book.csv").write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    with pytest.raises(ValueError, match="not a text file.*Excel workbook.*Save it as CSV"):
        read(tmp_path / "book.csv", Columns(text="t", label="l"))
    (tmp_path / "z.csv").write_bytes(gzip.compress(b"t,l\na,b\n" * 50))
    with pytest.raises(ValueError, match="gzip"):
        read(tmp_path / "z.csv", Columns(text="t", label="l"))
    with pytest.raises(IsADirectoryError, match="is a folder"):
        read(tmp_path, Columns(text="t", label="l"))


def test_unclosed_quote_names_the_line(tmp_path):
    p = _file(tmp_path, 'text,label\nok,1\n"never closed,0\nmore,1\n')
    with pytest.raises(ValueError, match=r"line 3: not valid CSV.*quoted field is closed"):
        read(p, Columns(text="text", label="label"))


@pytest.mark.parametrize("value", ["nan", "NaN", "NA", "null", "None"])
def test_missing_labels_are_refused(tmp_path, value):
    p = _file(tmp_path, "text,label\n" + _rows(10, lambda i: f"t{i},{'pos' if i < 6 else value}"))
    with pytest.raises(ValueError, match=f"line 8: the label in column 'label' is missing \\('{value}'\\)"):
        read(p, Columns(text="text", label="label"))
    if value == "None":  # a real class called None is kept when named
        ds = read(
            p,
            Columns(text="text", label="label", label_names=["None", "pos"]),
            splits=Splits(dev=0.2, test=0.2),
            verbose=False,
        )
        assert ds.label_names == ["None", "pos"]


def test_same_column_twice_is_refused(tmp_path):
    """Today's bug: text= and label= naming the same column doubled the rows."""
    p = _file(tmp_path, "text,label\n" + _rows(10, lambda i: f"t{i},{i % 2}"))
    with pytest.raises(ValueError, match="Column 'text' is named twice"):
        read(p, Columns(text="text", label="text"))
    with pytest.raises(ValueError, match="Column 'text' is named twice"):
        read(p, Columns(text_a="text", text_b="text", label="label"))
    with pytest.raises(ValueError, match="not both"):
        read(p, Columns(text="text", text_a="text", text_b="label", label="label"))


def test_numeric_labels_say_which_task_was_chosen(tmp_path, capsys):
    stars = _file(tmp_path, "review,stars\n" + _rows(50, lambda i: f"r{i},{1 + i % 5}"), "stars.csv")
    ds = read(stars, Columns(text="review", label="stars"))
    out = capsys.readouterr().out
    assert ds.task == "classification" and ds.label_names == ["1", "2", "3", "4", "5"]
    assert "5 distinct integers, read as classes; pass task='regression'" in out
    ds = read(stars, Columns(text="review", label="stars"), task="regression", verbose=False)
    assert ds.task == "regression" and ds.train.y.dtype == np.float32 and ds.info["task_reason"] == "as you asked"
    scores = _file(tmp_path, "review,score\n" + _rows(50, lambda i: f"r{i},{i * 3}"), "scores.csv")
    ds = read(scores, Columns(text="review", label="score"))
    assert ds.task == "regression" and "50 distinct integers" in capsys.readouterr().out
    with pytest.raises(ValueError, match="task='pairs' does not fit single texts"):
        read(scores, Columns(text="review", label="score"), task="pairs")


def test_empty_texts(tmp_path):
    p = _file(tmp_path, "text,label\n" + _rows(20, lambda i: f"{'' if i in (3, 9) else 't' + str(i)},{i % 2}"))
    with pytest.raises(ValueError, match=r"2 row\(s\) have an empty text \(first at line 5\).*skip_empty=True"):
        read(p, Columns(text="text", label="label"))
    ds = read(p, Columns(text="text", label="label"), skip_empty=True, verbose=False)
    assert sum(ds.sizes().values()) == 18 and ds.info["skipped_empty"] == 2


def test_one_class_only(tmp_path):
    with pytest.raises(ValueError, match="one class only"):
        read(_file(tmp_path, "text,label\n" + _rows(10, lambda i: f"t{i},pos")), Columns(text="text", label="label"))


def test_delimiters_and_duplicate_headers(tmp_path):
    ds = read(
        _file(tmp_path, "text;label\n" + _rows(20, lambda i: f"t, {i};{i % 2}"), "semi.csv"),
        Columns(text="text", label="label"),
        verbose=False,
    )
    assert ds.info["delimiter"] == ";" and any(", " in t for t in ds.train.texts)
    ds = read(
        _file(tmp_path, "text\tlabel\n" + _rows(20, lambda i: f"t {i}\t{i % 2}"), "tabs.csv"),
        Columns(text="text", label="label"),
        verbose=False,
    )
    assert ds.info["delimiter"] == "\t"
    with pytest.raises(KeyError, match="Only one column was found"):
        read(_file(tmp_path, "text:label\na:1\n", "colon.csv"), Columns(text="text", label="label"))
    with pytest.raises(ValueError, match=r"repeats the column name\(s\) \['text'\]"):
        read(_file(tmp_path, "text,text,label\na,b,1\n", "dup.csv"), Columns(text="text", label="label"))
