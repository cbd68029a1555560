"""kit.data.read, the one entry point: a format's settings that do not fit the file, names it does not know."""

import importlib

import pandas as pd
import pytest

from kit.cli import main
from kit.data import Columns, ConllFormat, ConlluFormat, CsvFormat, JsonlFormat, Splits, read

# imported after the kit, so that its check for TensorFlow sees the kit's block under jax and torch (kit/tf_guard.py)
datasets = importlib.import_module("datasets")

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend

COLUMNS = Columns(text="text", label="label")
ROWS = "text,label\n" + "".join(f'"text {i}, a comma",{"ab"[i % 2]}\n' for i in range(30))
CONLL = "".join(f"EU NNP B-ORG\nrejects{i} VBZ O\n\n" for i in range(30))
CONLLU = "".join(
    f"# text = Hi {i}\n1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n2\t{i}\t_\tNUM\tCD\t_\t1\tnum\t_\t_\n\n"
    for i in range(30)
)


@pytest.fixture
def files(tmp_path):
    """The same rows as CSV, JSON Lines, Parquet and a saved dataset; tagged tokens as CoNLL and CoNLL-U."""
    (tmp_path / "own.csv").write_text(ROWS)
    frame = pd.read_csv(tmp_path / "own.csv")
    frame.to_json(tmp_path / "own.jsonl", orient="records", lines=True)
    frame.to_parquet(tmp_path / "own.parquet")
    datasets.disable_progress_bars()
    datasets.Dataset.from_pandas(frame).save_to_disk(tmp_path / "saved")
    (tmp_path / "ner.conll").write_text(CONLL)
    (tmp_path / "ud.conllu").write_text(CONLLU)
    return tmp_path


@pytest.mark.parametrize(
    ("name", "fmt", "message"),
    [
        ("own.parquet", CsvFormat(delimiter=";"), r"CsvFormat does not apply to own.parquet: it is Parquet \(by its "
         r"name\). Parquet has no format settings: drop fmt=."),
        ("own.jsonl", CsvFormat(), r"it is JSON Lines \(by its name\). For JSON Lines pass JsonlFormat\(...\)"),
        ("own.csv", JsonlFormat(encoding="utf-8"), r"JsonlFormat does not apply to own.csv: it is CSV"),
        ("own.csv", ConllFormat(tag_column=2), r"For CSV pass CsvFormat.*A CoNLL file of another name: pass "
         r"task='tagging' \(kit run: --task tagging\)"),
        ("saved", JsonlFormat(), r"it is a saved Hugging Face dataset \(by its folder\). A saved Hugging Face dataset "
         "has no format settings"),
        ("ner.conll", ConlluFormat("xpos"), r"ConlluFormat does not apply to ner.conll: it is CoNLL \(a token and its "
         r"tags per line\) \(by its name\). For CoNLL .* pass ConllFormat"),
        ("ud.conllu", CsvFormat(encoding="latin-1"), r"CsvFormat does not apply to ud.conllu: it is CoNLL-U"),
    ],
)  # fmt: skip
def test_a_format_that_does_not_apply_names_what_the_file_is(files, name, fmt, message):
    with pytest.raises(ValueError, match=message):
        read(files / name, COLUMNS, fmt)


def test_a_format_applies_to_its_own_kind(files):
    sizes = {"train": 24, "dev": 3, "test": 3}
    assert read(files / "own.csv", COLUMNS, CsvFormat(delimiter=","), verbose=False).sizes() == sizes
    assert read(files / "own.jsonl", COLUMNS, JsonlFormat(encoding="utf-8"), verbose=False).sizes() == sizes
    assert read(files / "ner.conll", fmt=ConllFormat(1), verbose=False).label_names == ["NNP", "VBZ"]
    assert read(files / "ud.conllu", fmt=ConlluFormat(5), verbose=False).label_names == ["CD", "UH"]
    with pytest.raises(TypeError, match=r"fmt='csv': give one of CsvFormat, JsonlFormat, ConllFormat, ConlluFormat"):
        read(files / "own.csv", COLUMNS, "csv")


def test_row_options_do_not_apply_to_tagged_tokens(files):
    with pytest.raises(
        ValueError, match=r"^Columns\(text, label\) does not apply to ner.conll: it holds tagged tokens \(CoNLL\)"
    ):
        read(files / "ner.conll", COLUMNS)
    with pytest.raises(ValueError, match=r"^Splits\(column='part'\), skip_empty=True do not apply to ud.conllu: .*"
                       r"setting: ConlluFormat\(tag_field='upos'\)\.$"):  # fmt: skip
        read(files / "ud.conllu", splits=Splits(column="part"), skip_empty=True)
    assert read(files / "ud.conllu", splits=Splits(dev=0.2, test=0.2), verbose=False).sizes() == {
        "train": 18, "dev": 6, "test": 6
    }  # fmt: skip


def test_an_unknown_file_ending(files):
    (files / "own.dat").write_text(ROWS)
    with pytest.raises(ValueError, match=r"own.dat: read does not know the ending '.dat'. It reads a file \(CSV/TSV: "
                       r".*A CSV under another name: rename it .csv, or pass fmt=CsvFormat\(\)"):  # fmt: skip
        read(files / "own.dat", COLUMNS)
    assert read(files / "own.dat", COLUMNS, CsvFormat(), verbose=False).info["delimiter"] == ","  # the format says it
    (files / "book.xlsx").write_bytes(b"PK\x03\x04" + bytes(100))
    with pytest.raises(ValueError, match=r"book.xlsx: read does not know the ending '.xlsx'.*save it as CSV"):
        read(files / "book.xlsx", COLUMNS)
    (files / "noname").write_text(ROWS)
    with pytest.raises(ValueError, match=r"noname: read does not know the ending '\(none\)'"):
        read(files / "noname", COLUMNS)
    (files / "own.jsonl").rename(files / "export.dat")  # the content says it, whatever the name
    assert read(files / "export.dat", COLUMNS, verbose=False).info["format"] == "jsonl"


def test_a_tagged_format_says_what_a_plain_name_or_a_folder_holds(files):
    (files / "ner.txt").write_text(CONLL)
    with pytest.raises(KeyError, match="ner.txt has no column 'text'"):  # .txt: a CSV by its name
        read(files / "ner.txt", COLUMNS)
    assert read(files / "ner.txt", fmt=ConllFormat(), verbose=False).task == "tagging"
    assert read(files / "ner.txt", task="tagging", verbose=False).task == "tagging"
    (files / "eng.train").write_text(CONLL)
    assert read(files / "eng.train", fmt=ConllFormat(), verbose=False).label_names == ["B-ORG", "O"]
    folder = files / "conll2003"
    folder.mkdir()
    for name in ("train.txt", "valid.txt", "test.txt"):
        (folder / name).write_text(CONLL)
    assert read(folder, fmt=ConllFormat(), verbose=False).sizes() == {"train": 30, "dev": 30, "test": 30}
    with pytest.raises(IsADirectoryError, match="conll2003 is a folder of none of the kinds read"):
        read(folder, COLUMNS)


def test_paths_read_cannot_take(files):
    with pytest.raises(FileNotFoundError, match=r"No such file or folder: .*nope.csv. Check the path"):
        read(files / "nope.csv", COLUMNS)
    with pytest.raises(ValueError, match=r"state.json is a file inside a saved Hugging Face dataset; read the folder"):
        read(files / "saved" / "state.json", COLUMNS)
    assert read(files / "saved", COLUMNS, verbose=False).source == str(files / "saved")


def test_kit_run_reads_through_read(files, kit_run_reads, capsys):
    """`kit run` names the same problems in its flags: an unknown ending, a flag that does not apply."""
    (files / "own.dat").write_text(ROWS)
    args = ["run", "00", "--data", str(files / "own.dat"), "--text", "text", "--label", "label", "--out", str(files)]
    assert main(args) == 1
    assert "read does not know the ending '.dat'" in capsys.readouterr().err
    assert main([*args, "--delimiter", ","]) == 0 and kit_run_reads["ds"].info["delimiter"] == ","
    assert main([*args[:3], str(files / "saved"), *args[4:], "--delimiter", ";"]) == 1
    assert "--delimiter does not apply to a saved Hugging Face dataset" in capsys.readouterr().err
