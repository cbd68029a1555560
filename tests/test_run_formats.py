"""kit run --data in every format the field uses: CoNLL-U, JSON Lines, Parquet, a saved Hugging Face dataset.

Each file is made by the library that makes it (pandas/pyarrow for Parquet, `datasets` for JSON Lines and
save_to_disk); each is read by `kit run`'s check before a kernel starts as the notebook reads it, and each bad form
stops in seconds with a message that names the real cause.
"""

import importlib
import time

import pytest

import kit.runner
from kit.cli import main
from kit.data import Columns, ConlluFormat, OwnData, data_kind

# imported after the kit, so that its check for TensorFlow sees the kit's block under jax and torch (kit/tf_guard.py)
datasets = importlib.import_module("datasets")
pd = importlib.import_module("pandas")

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend

WORDS = ["good", "bad", "fine", "dull", "long", "short", "sharp", "slow"]
#: A UD sentence with a comment, a multiword token (3-4) and an empty node (5.1), as UD's format page shows them.
SENTENCE = (
    "# sent_id = s{i}\n# text = I want to go there{i}\n"
    "1\tI\tI\tPRON\tPRP\t_\t2\tnsubj\t_\t_\n"
    "2\twant\twant\tVERB\tVBP\t_\t0\troot\t_\t_\n"
    "3-4\ttogo\t_\t_\t_\t_\t_\t_\t_\t_\n"
    "3\tto\tto\tPART\tTO\t_\t4\tmark\t_\t_\n"
    "4\tgo\tgo\tVERB\tVB\t_\t2\txcomp\t_\t_\n"
    "5\tthere{i}\tthere\tADV\tRB\t_\t4\tadvmod\t_\t_\n"
    "5.1\tgo\tgo\tVERB\tVB\t_\t_\t_\t4:conj\t_\n\n"
)


def _rows(n=60):
    texts = [f"{WORDS[i % 8]} film number {i}, {WORDS[(i * 3) % 8]} ending" for i in range(n)]
    return texts, [i % 2 for i in range(n)]


def _hf(n=60):
    texts, labels = _rows(n)
    features = datasets.Features({"text": datasets.Value("string"), "label": datasets.ClassLabel(names=["neg", "pos"])})
    return datasets.Dataset.from_dict({"text": texts, "label": labels}, features=features)


@pytest.fixture(autouse=True)
def _quiet_and_offline(monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    datasets.disable_progress_bars()


@pytest.fixture
def files(tmp_path):
    """The same 60 labelled rows as JSON Lines, Parquet, a saved DatasetDict and Dataset; pairs; a CoNLL-U file."""
    d = _hf()
    d.to_json(tmp_path / "own.jsonl")
    d.to_pandas().to_parquet(tmp_path / "own.parquet")
    splits = {"train": range(40), "validation": range(40, 50), "test": range(50, 60)}
    datasets.DatasetDict({k: d.select(rows) for k, rows in splits.items()}).save_to_disk(tmp_path / "dict")
    d.save_to_disk(tmp_path / "one")
    texts, labels = _rows()
    pairs = pd.DataFrame({"premise": texts, "hypothesis": texts[::-1], "label": labels})
    pairs.to_json(tmp_path / "pairs.jsonl", orient="records", lines=True)
    pairs.to_parquet(tmp_path / "pairs.parquet")
    (tmp_path / "ud.conllu").write_text("".join(SENTENCE.format(i=i) for i in range(30)), encoding="utf-8")
    return tmp_path


def test_data_kind_by_name_then_by_content(files):
    assert [data_kind(files / n) for n in ("own.jsonl", "own.parquet", "dict", "one", "ud.conllu")] == [
        "jsonl", "parquet", "hf_disk", "hf_disk", "conllu"
    ]  # fmt: skip
    (files / "own.csv").write_bytes((files / "own.jsonl").read_bytes())  # JSON Lines under a CSV name
    (files / "ud.txt").write_bytes((files / "ud.conllu").read_bytes())  # CoNLL-U under another name
    (files / "data.bin").write_bytes((files / "own.parquet").read_bytes())
    assert [data_kind(files / n) for n in ("own.csv", "ud.txt", "data.bin")] == ["jsonl", "conllu", "parquet"]
    assert data_kind(files / "ud.conllu", "classification") == "csv"  # a task other than tagging: rows
    assert data_kind(files) == "conllu"  # a folder holding .conllu files is a treebank's


@pytest.mark.parametrize(
    ("name", "flags", "sizes"),
    [
        ("own.jsonl", ["--text", "text", "--label", "label"], {"train": 48, "dev": 6, "test": 6}),
        ("own.parquet", ["--text", "text", "--label", "label"], {"train": 48, "dev": 6, "test": 6}),
        ("dict", ["--text", "text", "--label", "label"], {"train": 40, "dev": 10, "test": 10}),  # its splits kept
        ("one", ["--text", "text", "--label", "label"], {"train": 48, "dev": 6, "test": 6}),
        ("pairs.jsonl", ["--text-a", "premise", "--text-b", "hypothesis", "--label", "label"], None),
        ("pairs.parquet", ["--text-a", "premise", "--text-b", "hypothesis", "--label", "label"], None),
    ],
)
def test_kit_run_00_reads_each_format_with_the_column_flags(files, kit_run_reads, name, flags, sizes):
    assert main(["run", "00", "--data", str(files / name), *flags, "--out", str(files / "o")]) == 0
    ds = kit_run_reads["ds"]
    assert ds.task == ("pairs" if "pairs" in name else "classification")
    assert sizes is None or ds.sizes() == sizes
    if name in ("dict", "one"):
        assert ds.label_names == ["neg", "pos"]  # the ClassLabel's names
    texts = [t for s in ds.splits.values() for t in s.texts]
    first = "good film number 0, good ending"
    assert len(texts) == 60 and (first in str(texts) if ds.task == "pairs" else first in texts)


def test_kit_run_03_trains_on_upos_by_default_and_xpos_when_asked(files, kit_run_reads, capsys):
    conllu = str(files / "ud.conllu")
    assert main(["run", "03", "--data", conllu, "--out", str(files / "o")]) == 0
    ds = kit_run_reads["ds"]
    assert ds.task == "tagging" and ds.label_names == ["ADV", "PART", "PRON", "VERB"]
    assert ds.train.texts[0][:4] == ["I", "want", "to", "go"]  # the range 3-4 and the empty node 5.1 skipped
    assert "KIT_TAG_COLUMN" not in kit_run_reads
    for field in ("xpos", "XPOS", "5"):
        assert main(["run", "03", "--data", conllu, "--tag-column", field, "--out", str(files / "o")]) == 0
        assert kit_run_reads["ds"].label_names == ["PRP", "RB", "TO", "VB", "VBP"]
    assert OwnData(conllu, fmt=ConlluFormat("xpos"), task="tagging").load(verbose=False).info["tag_field"] == "XPOS"


BAD = {  # name: (file name, content maker, flags, what the error must say)
    "a CoNLL-U line with spaces for tabs": (
        "bad.conllu",
        lambda f: (f / "ud.conllu").read_text().replace("2\twant\twant", "2 want want", 1),
        [],
        "bad.conllu, line 4: expected the 10 tab-separated fields of CoNLL-U",
    ),
    "a CoNLL-U sentence whose IDs skip": (
        "bad.conllu",
        lambda f: (f / "ud.conllu").read_text().replace("4\tgo\tgo", "6\tgo\tgo", 1),
        [],
        "bad.conllu, line 7: word ID 6",
    ),
    "a CoNLL-U field that does not exist": ("ud.conllu", None, ["--tag-column", "11"], "outside 1-10"),
    "a CoNLL field name for a CoNLL file": ("ner.conll", "EU B-ORG\n\n", ["--tag-column", "upos"], "for CoNLL-U"),
    "a JSON Lines file without the column": ("own.jsonl", None, ["--text", "review", "--label", "label"],
                                             "has no column 'review'. Its keys are ['text', 'label']"),
    "a broken JSON line": ("bad.jsonl", lambda f: (f / "own.jsonl").read_text() + '{"text": "cut off\n',
                           ["--text", "text", "--label", "label"], "bad.jsonl, line 61: not valid JSON"),
    "an empty text in Parquet": (
        "empty.parquet",
        lambda f: pd.DataFrame({"text": ["a", "", "c"] * 10, "label": [0, 1, 0] * 10}),
        ["--text", "text", "--label", "label"],
        "empty text",
    ),
    "one class in JSON Lines": ("one.jsonl", '{"text": "a", "label": 1}\n' * 10, ["--text", "text", "--label", "label"],
                                "one class"),
    "a class of two rows in Parquet": (
        "small.parquet",
        lambda f: pd.DataFrame({"text": [f"t{i}" for i in range(32)], "label": [0, 1] * 15 + [2, 2]}),
        ["--text", "text", "--label", "label"],
        "fewer than 3 rows",
    ),
    "a saved dataset without the column": ("dict", None, ["--text", "review", "--label", "label"],
                                           "has no column 'review'. Its columns are ['text', 'label']"),
    "a file inside a saved dataset": ("dict/train/state.json", None, ["--text", "text", "--label", "label"],
                                      "pass its folder"),
    "a delimiter for Parquet": ("own.parquet", None, ["--text", "text", "--label", "label", "--delimiter", ";"],
                                "--delimiter does not apply to Parquet"),
    "a tag column for JSON Lines": ("own.jsonl", None, ["--text", "text", "--label", "label", "--tag-column", "2"],
                                    "--tag-column is for tagged tokens"),
    "a folder of something else": ("plain", lambda f: None, ["--text", "text", "--label", "label"], "is a folder"),
    "tagged tokens to notebook 00": ("ud.conllu", None, [], "Notebook 00_start_here needs classification"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD))
def test_each_bad_form_is_refused_in_seconds_naming_the_cause(case, files, capsys, monkeypatch):
    def no_kernel(*a, **k):
        raise AssertionError("a kernel was started for bad data")

    monkeypatch.setattr(kit.runner, "run_notebook", no_kernel)
    name, content, flags, message = BAD[case]
    path = files / name
    made = content(files) if callable(content) else content
    if isinstance(made, pd.DataFrame):
        made.to_parquet(path)
    elif isinstance(made, str):
        path.write_text(made, encoding="utf-8")
    elif name == "plain":
        path.mkdir()
        (path / "notes.txt").write_text("hello")
    notebook = "00" if ("conllu" not in name and "conll" not in name) or "notebook 00" in case else "03"
    t = time.perf_counter()
    assert main(["run", notebook, "--data", str(path), *flags, "--out", str(files / "o")]) == 1
    assert time.perf_counter() - t < 5
    assert message in capsys.readouterr().err


def test_flags_that_do_not_fit_the_format(files):
    with pytest.raises(ValueError, match="--text does not apply to CoNLL-U"):
        OwnData.from_flags(str(files / "ud.conllu"), Columns(text="t"))
    with pytest.raises(ValueError, match="--encoding does not apply to a saved Hugging Face dataset"):
        OwnData.from_flags(str(files / "dict"), Columns(text="text", label="label"), encoding="latin-1")
    env = OwnData.from_flags(str(files / "ud.conllu"), tag_column="xpos").env()
    assert env["KIT_TASK"] == "tagging" and env["KIT_TAG_COLUMN"] == "xpos"
    own = OwnData.from_flags(str(files / "own.jsonl"), Columns(text="text", label="label"), encoding="utf-8")
    assert own.env()["KIT_ENCODING"] == "utf-8" and OwnData.from_env(own.env()) == own  # the kernel gets the same
