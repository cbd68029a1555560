"""kit.data.read on JSON Lines: as pandas and datasets write them, and the messy files people bring."""

import importlib
import json

import numpy as np
import pandas as pd
import pytest

from kit.data import Columns, CsvFormat, JsonlFormat, Splits, data_kind, read

# imported after the kit, so that its check for TensorFlow sees the kit's block under jax and torch (kit/tf_guard.py)
datasets = importlib.import_module("datasets")

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend

TEXTS = [  # texts as people write them: line breaks, quotes, slashes, unicode, U+2028, edges
    'He said, "a\nlaw is a law",\r\nand left.',
    "  leading and trailing spaces  ",
    "a/b\\c and tabs\tinside",
    "Ünïcödé — “curly” quotes, emoji 🎉 and a line\u2028separator",
    "a single line",
]


def _write_lines(path, objects, blank_every=0):
    lines = []
    for i, obj in enumerate(objects):
        lines.append(json.dumps(obj, ensure_ascii=False))
        if blank_every and i % blank_every == 0:
            lines.append("   ")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _reviews(n=40, label=lambda i: "pos" if i % 2 else "neg"):
    return [{"text": f"{TEXTS[i % len(TEXTS)]} #{i}", "label": label(i)} for i in range(n)]


def _all_texts(ds):
    return sorted(t for s in ds.splits.values() for t in s.texts)


def test_pandas_records_round_trip_exactly(tmp_path):
    df = pd.DataFrame(_reviews(60))
    path = tmp_path / "own.jsonl"
    df.to_json(path, orient="records", lines=True, force_ascii=False)
    ds = read(path, Columns(text="text", label="label"), verbose=False)
    assert ds.task == "classification" and ds.label_names == ["neg", "pos"]
    assert ds.sizes() == {"train": 48, "dev": 6, "test": 6}
    assert _all_texts(ds) == sorted(df["text"])
    back = {t: ds.label_names[y] for s in ds.splits.values() for t, y in zip(s.texts, s.labels)}
    assert back == dict(zip(df["text"], df["label"]))
    assert ds.info["format"] == "jsonl" and ds.info["encoding"] == "utf-8" and ds.source == str(path)


def test_datasets_to_json_with_integer_labels(tmp_path, capsys):
    rows = {"sentence": [f"sentence {i}" for i in range(50)], "label": [i % 5 for i in range(50)]}
    path = tmp_path / "sst.jsonl"
    datasets.Dataset.from_dict(rows).to_json(path)
    ds = read(path, Columns(text="sentence", label="label"))
    assert ds.task == "classification" and ds.label_names == ["0", "1", "2", "3", "4"]
    assert "5 distinct integers, read as classes" in capsys.readouterr().out
    ds = read(path, Columns(text="sentence", label="label"), task="regression", verbose=False)
    assert ds.task == "regression" and ds.train.y.dtype == np.float32


def test_labels_become_the_strings_a_csv_would_hold(tmp_path):
    bools = _write_lines(tmp_path / "b.jsonl", _reviews(30, lambda i: i % 3 == 0))
    assert read(bools, Columns(text="text", label="label"), verbose=False).label_names == ["false", "true"]
    scores = _write_lines(tmp_path / "s.jsonl", _reviews(30, lambda i: i / 8))
    ds = read(scores, Columns(text="text", label="label"), verbose=False)
    assert ds.task == "regression" and sorted(np.concatenate([s.y for s in ds.splits.values()]))[1] == 0.125
    mixed = _write_lines(tmp_path / "m.jsonl", _reviews(30, lambda i: [1, "1", 2][i % 3]))
    assert read(mixed, Columns(text="text", label="label"), verbose=False).label_names == ["1", "2"]


def test_pairs_split_key_and_blank_lines(tmp_path):
    split = ["train"] * 12 + ["dev"] * 4 + ["test"] * 4
    rows = [{"q1": f"a {i}", "q2": f"b {i}", "dup": i % 2, "part": split[i]} for i in range(20)]
    path = _write_lines(tmp_path / "pairs.ndjson", rows, blank_every=3)
    ds = read(path, Columns(text_a="q1", text_b="q2", label="dup"), splits=Splits(column="part"), verbose=False)
    assert ds.task == "pairs" and ds.sizes() == {"train": 12, "dev": 4, "test": 4}
    assert ds.dev.texts == [f"a {i}" for i in range(12, 16)] and ds.dev.texts_b == [f"b {i}" for i in range(12, 16)]
    rows[13]["q2"] = ""  # object 13 sits on line 19: 13 objects and 5 blank lines before it
    with pytest.raises(ValueError, match=r"pairs.ndjson: 1 row\(s\) have an empty text \(first at line 19\)"):
        read(_write_lines(path, rows, blank_every=3), Columns(text_a="q1", text_b="q2", label="dup"))


def test_a_json_array_of_objects(tmp_path):
    df = pd.DataFrame(_reviews(30))
    path = tmp_path / "own.json"
    df.to_json(path, orient="records", force_ascii=False, indent=2)
    ds = read(path, Columns(text="text", label="label"), verbose=False)
    assert _all_texts(ds) == sorted(df["text"])
    objects = _reviews(30)
    objects[7]["text"] = ["a", "list"]
    path.write_text("[\n" + ",\n".join(json.dumps(o) for o in objects) + "\n]\n")
    with pytest.raises(ValueError, match=r"own.json, line 9: the text in column 'text' is a list"):
        read(path, Columns(text="text", label="label"))


def test_a_line_that_is_not_json_names_the_line_and_the_error(tmp_path):
    path = _write_lines(tmp_path / "own.jsonl", _reviews(20))
    lines = path.read_text(encoding="utf-8").split("\n")  # not splitlines(): a text holds U+2028
    lines[11] = lines[11][:-1]  # the closing brace lost
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(ValueError, match=r"own.jsonl, line 12: not valid JSON \(Expecting ',' delimiter, at column"):
        read(path, Columns(text="text", label="label"))
    path.write_text('{"text": "a", "label": 1}\n[1, 2]\n')
    with pytest.raises(ValueError, match=r"line 2: a JSON value that is a list, not an object"):
        read(path, Columns(text="text", label="label"))


def test_texts_that_are_not_strings(tmp_path):
    rows = _reviews(20)
    for bad, kind in ((["a", "list"], "a list"), (42, "a number"), ({"nested": "x"}, "an object")):
        rows[5]["text"] = bad
        with pytest.raises(ValueError, match=f"own.jsonl, line 6: the text in column 'text' is {kind} "):
            read(_write_lines(tmp_path / "own.jsonl", rows), Columns(text="text", label="label"))
    rows[5]["text"] = None
    with pytest.raises(ValueError, match=r"line 6: the text in column 'text' is null.*skip_empty=True"):
        read(_write_lines(tmp_path / "own.jsonl", rows), Columns(text="text", label="label"))
    ds = read(tmp_path / "own.jsonl", Columns(text="text", label="label"), skip_empty=True, verbose=False)
    assert sum(ds.sizes().values()) == 19 and ds.info["skipped_empty"] == 1
    rows[9]["text"] = "   "
    ds = read(_write_lines(tmp_path / "own.jsonl", rows), Columns(text="text", label="label"), skip_empty=True)
    assert sum(ds.sizes().values()) == 18 and ds.info["skipped_empty"] == 2


def test_missing_labels_keys_and_columns(tmp_path):
    rows = _reviews(20)
    rows[3]["label"] = None
    with pytest.raises(ValueError, match=r"own.jsonl, line 4: the label in column 'label' is missing \(null\)"):
        read(_write_lines(tmp_path / "own.jsonl", rows), Columns(text="text", label="label"))
    rows[3]["label"] = "NaN"
    with pytest.raises(ValueError, match=r"line 4: the label in column 'label' is missing \('NaN'\).*label_names"):
        read(_write_lines(tmp_path / "own.jsonl", rows), Columns(text="text", label="label"))
    rows[3]["label"] = [1, 0]
    with pytest.raises(ValueError, match=r"line 4: the label in column 'label' is a list \(\[1, 0\]\), not one value"):
        read(_write_lines(tmp_path / "own.jsonl", rows), Columns(text="text", label="label"))
    del rows[3]["label"]
    with pytest.raises(ValueError, match=r"line 4: no 'label' here \(its fields are \['text'\]\)"):
        read(_write_lines(tmp_path / "own.jsonl", rows), Columns(text="text", label="label"))
    with pytest.raises(KeyError, match=r"own.jsonl has no column 'review'. Its keys are \['text', 'label'\]"):
        read(tmp_path / "own.jsonl", Columns(text="review", label="label"))


def test_one_class_and_a_class_of_two_rows(tmp_path):
    path = _write_lines(tmp_path / "own.jsonl", _reviews(20, lambda i: "pos"))
    with pytest.raises(ValueError, match=r"column 'label' holds one class only \(\['pos'\]\)"):
        read(path, Columns(text="text", label="label"))
    path = _write_lines(path, _reviews(20, lambda i: "rare" if i in (4, 15) else ["neg", "pos"][i % 2]))
    with pytest.raises(ValueError, match=r"own.jsonl: class 'rare' \(2, line 5\) has fewer than 3 rows"):
        read(path, Columns(text="text", label="label"))


SHAPES = {  # what is in own.jsonl: (how to write it, what the error must say)
    "blank lines only": (lambda p: p.write_text("\n  \n"), "own.jsonl is empty: it needs one JSON object per line"),
    "pandas' default: one object of whole columns": (
        lambda p: pd.DataFrame(_reviews(10)).to_json(p),
        r"one object of whole columns.*orient='records', lines=True",
    ),
    "an object over several lines": (
        lambda p: p.write_text(json.dumps(_reviews(10)[0], indent=2)),
        r"line 1: not valid JSON.*spread over several lines",
    ),
    "a CSV": (lambda p: p.write_text("text,label\na,1\n"), r"line 1: not valid JSON.*If it is a CSV or TSV file"),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_empty_files_and_other_json_shapes(tmp_path, shape):
    write, message = SHAPES[shape]
    write(tmp_path / "own.jsonl")
    with pytest.raises(ValueError, match=message):
        read(tmp_path / "own.jsonl", Columns(text="text", label="label"))


def test_a_jsonl_file_named_csv(tmp_path):
    """The issue's bug: a JSON Lines file read as CSV answered with a column list of JSON fragments."""
    path = tmp_path / "own.csv"
    pd.DataFrame(_reviews(30)).to_json(path, orient="records", lines=True)
    assert data_kind(path) == "jsonl"  # its content says it, whatever its name
    assert read(path, Columns(text="text", label="label"), verbose=False).sizes()["train"] == 24
    with pytest.raises(ValueError) as info:
        read(path, Columns(text="text", label="label"), CsvFormat(delimiter=";"))
    message = str(info.value)
    assert message.startswith("CsvFormat does not apply to own.csv: it is JSON Lines (by its content, whatever")
    assert "For JSON Lines pass JsonlFormat(...) or nothing." in message
    assert '{"text"' not in message  # no column list of JSON fragments


def test_encodings(tmp_path):
    rows = [{"text": f"café {i}", "label": i % 2} for i in range(20)]
    path = tmp_path / "bom.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8-sig")
    assert read(path, Columns(text="text", label="label"), verbose=False).info["encoding"] == "utf-8-sig"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="cp1252")
    with pytest.raises(ValueError, match=r"bom.jsonl, line 1: byte .* is not valid utf-8.*encoding='cp1252'"):
        read(path, Columns(text="text", label="label"))
    ds = read(path, Columns(text="text", label="label"), JsonlFormat(encoding="cp1252"), verbose=False)
    assert any("café" in t for t in ds.train.texts)


def test_arguments_and_paths(tmp_path):
    path = _write_lines(tmp_path / "own.jsonl", _reviews(20))
    with pytest.raises(ValueError, match=r"Name the text column: read\(path, Columns\(text='column'"):
        read(path, Columns(label="label"))
    with pytest.raises(ValueError, match="Column 'text' is named twice"):
        read(path, Columns(text="text", label="text"))
    with pytest.raises(FileNotFoundError, match="No such file"):
        read(tmp_path / "none.jsonl", Columns(text="text", label="label"))
    with pytest.raises(IsADirectoryError, match="is a folder of none of the kinds read: read takes a file"):
        read(tmp_path, Columns(text="text", label="label"))
