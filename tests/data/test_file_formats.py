"""Which reader a file needs (kit.data.data_kind), by its name, or by its content where the name lies."""

import json

import pandas as pd
import pytest

from kit.data import Columns, data_kind, read
from kit.data.file_formats import content_format, format_hint

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend

CONLLU = (
    "# sent_id = tr-forum:1\n# text = Burda da var.\n"
    "1\tBurda\tbura\tNOUN\t_\tCase=Loc\t3\tobl\t_\t_\n2\tda\tda\tCCONJ\t_\t_\t1\tadvmod\t_\t_\n"
    "3\tvar\tvar\tADJ\t_\t_\t0\troot\t_\tSpaceAfter=No\n4\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_\n\n"
)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("a.csv", "csv"),
        ("a.TSV", "csv"),
        ("a.tab", "csv"),
        ("a.txt", "csv"),
        ("a.jsonl", "jsonl"),
        ("a.ndjson", "jsonl"),
        ("a.json", "jsonl"),
        ("a.parquet", "parquet"),
        ("a.pq", "parquet"),
        ("a", "csv"),
        ("a.conll", "conll"),
        ("a.BIO", "conll"),
        ("a.conllu", "conllu"),
    ],
)
def test_by_name(tmp_path, name, expected):
    assert data_kind(tmp_path / name) == expected  # no such file: the name decides


def test_by_content_where_the_name_lies_or_says_nothing(tmp_path):
    rows = pd.DataFrame({"text": ["a, b", "c"], "label": [1, 0]})
    rows.to_json(tmp_path / "own.csv", orient="records", lines=True)
    rows.to_json(tmp_path / "export", orient="records")  # a JSON array, no suffix
    rows.to_parquet(tmp_path / "table.jsonl")
    rows.to_parquet(tmp_path / "table.dat")
    rows.to_csv(tmp_path / "plain.dat", index=False)
    rows.to_csv(tmp_path / "plain.jsonl", index=False)  # CSV named .jsonl: the name decides, the reader explains
    found = {p.name: data_kind(p) for p in sorted(tmp_path.iterdir())}
    assert found == {
        "export": "jsonl",
        "own.csv": "jsonl",
        "plain.dat": "csv",
        "plain.jsonl": "jsonl",
        "table.dat": "parquet",
        "table.jsonl": "parquet",
    }
    assert [content_format(tmp_path / n) for n in ("own.csv", "table.dat", "plain.dat")] == ["jsonl", "parquet", None]


def test_folders_and_long_first_lines(tmp_path):
    assert data_kind(tmp_path) == "folder" and content_format(tmp_path) is None
    (tmp_path / "state.json").write_text("{}")
    assert data_kind(tmp_path) == "hf_disk"
    long = tmp_path / "long.txt"  # a first object longer than the bytes read to sniff it
    long.write_text(json.dumps({"text": "word " * 50_000, "label": 1}) + "\n", encoding="utf-8")
    assert data_kind(long) == "jsonl"
    brace = tmp_path / "brace.csv"  # a CSV whose first field starts with a brace is still a CSV
    brace.write_text("{text},label\n{a},1\n")
    assert data_kind(brace) == "csv" and content_format(brace) is None


def test_conllu_by_content_and_the_hint_from_csv(tmp_path):
    path = tmp_path / "web.txt"
    path.write_text(CONLLU, encoding="utf-8")
    assert content_format(path) == "conllu" and data_kind(path) == "conllu"
    assert data_kind(path, "classification") == "csv"  # rows asked for: the name decides
    no_comments = tmp_path / "bare.txt"
    no_comments.write_text(CONLLU.split("\n", 2)[2], encoding="utf-8")
    assert content_format(no_comments) == "conllu"
    with pytest.raises(
        KeyError, match=r"web.txt has no CSV column 'text'. It looks like CoNLL-U, not CSV: name it .conllu"
    ):
        read(path, Columns(text="text", label="label"), task="classification")
    assert format_hint(path, "conllu") == ""
