"""kit.data.read on Parquet: Parquet as pandas and pyarrow write it, and the messy tables people bring."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kit.data import Columns, CsvFormat, Splits, data_kind, read

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend


def _frame(n=40, label=lambda i: "pos" if i % 2 else "neg"):
    texts = [f'review {i}: "quoted",\nacross lines — ünïcödé' if i % 4 == 0 else f"review {i}" for i in range(n)]
    return pd.DataFrame({"text": texts, "label": [label(i) for i in range(n)]})


def _all(ds):
    return {
        t: (ds.label_names[y] if ds.label_names else float(y)) for s in ds.splits.values() for t, y in zip(s.texts, s.y)
    }


def test_pandas_parquet_round_trip(tmp_path, capsys):
    df = _frame(50)
    df.to_parquet(tmp_path / "own.parquet")
    ds = read(tmp_path / "own.parquet", Columns(text="text", label="label"))
    assert "own.parquet: 50 rows, task 'classification' (the labels are names); train 40, dev 5, test 5" in (
        capsys.readouterr().out
    )
    assert _all(ds) == dict(zip(df["text"], df["label"])) and ds.info["format"] == "parquet"


def test_a_categorical_label_and_a_dictionary_column(tmp_path):
    df = _frame(30)
    df["label"] = pd.Categorical(df["label"], categories=["pos", "neg", "unused"])
    df.to_parquet(tmp_path / "cat.parquet")
    assert (
        pq.read_schema(tmp_path / "cat.parquet").field("label").type.value_type == pa.string()
    )  # stored as a dictionary
    ds = read(tmp_path / "cat.parquet", Columns(text="text", label="label"), verbose=False)
    assert ds.label_names == ["neg", "pos"] and _all(ds) == dict(zip(df["text"], df["label"].astype(str)))
    table = pa.table({"text": pa.array(df["text"]).dictionary_encode(), "label": pa.array(df["label"].astype(str))})
    pq.write_table(table, tmp_path / "dict.pq")
    assert read(tmp_path / "dict.pq", Columns(text="text", label="label"), verbose=False).sizes()["train"] == 24


def test_a_null_label_names_its_row(tmp_path):
    df = _frame(30)
    df.loc[6, "label"] = None
    df.to_parquet(tmp_path / "own.parquet")
    with pytest.raises(ValueError, match=r"own.parquet, row 7: the label in column 'label' is missing \(null\)"):
        read(tmp_path / "own.parquet", Columns(text="text", label="label"))
    scores = pd.DataFrame({"text": [f"t {i}" for i in range(30)], "score": [i / 4 for i in range(30)]})
    scores.loc[11, "score"] = np.nan  # pandas stores a float column's NaN as a null
    scores.to_parquet(tmp_path / "scores.parquet")
    with pytest.raises(ValueError, match=r"row 12: the label in column 'score' is missing \(null\)"):
        read(tmp_path / "scores.parquet", Columns(text="text", label="score"))


def test_numbers_and_booleans_as_labels(tmp_path):
    scores = pd.DataFrame({"text": [f"t {i}" for i in range(30)], "score": [i / 4 for i in range(30)]})
    scores.to_parquet(tmp_path / "scores.parquet")
    ds = read(tmp_path / "scores.parquet", Columns(text="text", label="score"), verbose=False)
    assert ds.task == "regression" and _all(ds) == dict(zip(scores["text"], scores["score"]))
    stars = pd.DataFrame({"text": [f"t {i}" for i in range(30)], "stars": np.arange(30, dtype="int8") % 5 + 1})
    stars.to_parquet(tmp_path / "stars.parquet")
    ds = read(tmp_path / "stars.parquet", Columns(text="text", label="stars"), verbose=False)
    assert ds.task == "classification" and ds.label_names == ["1", "2", "3", "4", "5"]
    flags = pd.DataFrame({"text": [f"t {i}" for i in range(30)], "spam": [i % 3 == 0 for i in range(30)]})
    flags.to_parquet(tmp_path / "flags.parquet")
    assert read(tmp_path / "flags.parquet", Columns(text="text", label="spam"), verbose=False).label_names == [
        "false",
        "true",
    ]


def test_pairs_and_a_split_column(tmp_path):
    split = ["train"] * 14 + ["dev"] * 3 + ["test"] * 3
    df = pd.DataFrame(
        {"q1": [f"a {i}" for i in range(20)], "q2": [f"b {i}" for i in range(20)], "dup": [i % 2 for i in range(20)]}
    )
    df["part"] = split
    df.to_parquet(tmp_path / "pairs.parquet", engine="pyarrow", index=True)
    ds = read(
        tmp_path / "pairs.parquet",
        Columns(text_a="q1", text_b="q2", label="dup"),
        splits=Splits(column="part"),
        verbose=False,
    )
    assert ds.task == "pairs" and ds.sizes() == {"train": 14, "dev": 3, "test": 3}
    assert ds.test.texts == ["a 17", "a 18", "a 19"] and ds.test.texts_b == ["b 17", "b 18", "b 19"]
    with pytest.raises(
        KeyError, match=r"pairs.parquet has no column 'q3'. Its columns are \['q1', 'q2', 'dup', 'part'\]"
    ):
        read(tmp_path / "pairs.parquet", Columns(text_a="q1", text_b="q3", label="dup"))


def test_texts_that_are_not_strings_null_and_empty(tmp_path):
    pd.DataFrame({"text": list(range(20)), "label": [i % 2 for i in range(20)]}).to_parquet(tmp_path / "n.parquet")
    with pytest.raises(
        ValueError, match=r"n.parquet, row 1: the text in column 'text' is a number \(0\), not a string"
    ):
        read(tmp_path / "n.parquet", Columns(text="text", label="label"))
    tokens = pa.table({"text": [["a", "b"]] * 20, "label": [i % 2 for i in range(20)]})
    pq.write_table(tokens, tmp_path / "lists.parquet")
    with pytest.raises(ValueError, match=r"row 1: the text in column 'text' is a list \(\['a', 'b'\]\)"):
        read(tmp_path / "lists.parquet", Columns(text="text", label="label"))
    df = _frame(30)
    df.loc[4, "text"] = None
    df.loc[9, "text"] = "  "
    df.to_parquet(tmp_path / "holes.parquet")
    with pytest.raises(ValueError, match=r"holes.parquet, row 5: the text in column 'text' is null"):
        read(tmp_path / "holes.parquet", Columns(text="text", label="label"))
    ds = read(tmp_path / "holes.parquet", Columns(text="text", label="label"), skip_empty=True, verbose=False)
    assert sum(ds.sizes().values()) == 28 and ds.info["skipped_empty"] == 2
    df.loc[4, "text"] = ""
    df.to_parquet(tmp_path / "holes.parquet")
    with pytest.raises(ValueError, match=r"2 row\(s\) have an empty text \(first at row 5\)"):
        read(tmp_path / "holes.parquet", Columns(text="text", label="label"))


def test_one_class_a_class_of_two_rows_and_no_rows(tmp_path):
    _frame(20, lambda i: "pos").to_parquet(tmp_path / "one.parquet")
    with pytest.raises(ValueError, match=r"one.parquet: column 'label' holds one class only"):
        read(tmp_path / "one.parquet", Columns(text="text", label="label"))
    _frame(20, lambda i: "rare" if i in (2, 17) else ["neg", "pos"][i % 2]).to_parquet(tmp_path / "rare.parquet")
    with pytest.raises(ValueError, match=r"rare.parquet: class 'rare' \(2, row 3\) has fewer than 3 rows"):
        read(tmp_path / "rare.parquet", Columns(text="text", label="label"))
    _frame(0).to_parquet(tmp_path / "none.parquet")
    with pytest.raises(ValueError, match=r"none.parquet has no rows\.$"):
        read(tmp_path / "none.parquet", Columns(text="text", label="label"))


def test_files_that_are_not_parquet(tmp_path):
    (tmp_path / "own.parquet").write_text('{"text": "a", "label": 1}\n{"text": "b", "label": 0}\n' * 10)
    assert data_kind(tmp_path / "own.parquet") == "jsonl"  # JSON Lines under a Parquet name: its content says it
    assert read(tmp_path / "own.parquet", Columns(text="text", label="label"), verbose=False).info["format"] == "jsonl"
    (tmp_path / "own.parquet").write_text("text,label\na,1\n")
    with pytest.raises(ValueError, match=r"own.parquet is not a Parquet file, or it is damaged \(pyarrow: "):
        read(tmp_path / "own.parquet", Columns(text="text", label="label"))
    _frame(30).to_parquet(tmp_path / "table.csv")  # Parquet under a CSV's name
    assert data_kind(tmp_path / "table.csv") == "parquet"
    with pytest.raises(ValueError, match=r"CsvFormat does not apply to table.csv: it is Parquet \(by its content"):
        read(tmp_path / "table.csv", Columns(text="text", label="label"), CsvFormat(encoding="utf-8"))
    assert read(tmp_path / "table.csv", Columns(text="text", label="label"), verbose=False).sizes()["test"] == 3


def test_a_column_named_twice_in_the_file(tmp_path):
    table = pa.Table.from_arrays([pa.array(["a"] * 9), pa.array(["b"] * 9), pa.array([0, 1, 2] * 3)], ["t", "t", "l"])
    pq.write_table(table, tmp_path / "dup.parquet")
    with pytest.raises(ValueError, match=r"dup.parquet: the file repeats the column name\(s\) \['t'\]"):
        read(tmp_path / "dup.parquet", Columns(text="t", label="l"))
