"""kit.data.read on Hugging Face datasets: in memory, and as save_to_disk writes them."""

import importlib
import sys

import numpy as np
import pytest

from kit.data import Columns, CsvFormat, Splits, data_kind, read

# imported after the kit, so that its check for TensorFlow sees the kit's block under jax and torch (kit/tf_guard.py)
datasets = importlib.import_module("datasets")

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend

#: A ClassLabel whose order is not the sorted one: its names must come back in this order.
NAMES = ["positive", "negative", "neutral"]


@pytest.fixture(autouse=True)
def _quiet_and_offline(monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    datasets.disable_progress_bars()


def _dataset(n=60, label=lambda i: i % 3, features=True, start=0):
    rows = {"text": [f"text {start + i}" for i in range(n)], "label": [label(i) for i in range(n)]}
    if not features:
        return datasets.Dataset.from_dict(rows)
    kinds = datasets.Features({"text": datasets.Value("string"), "label": datasets.ClassLabel(names=NAMES)})
    return datasets.Dataset.from_dict(rows, features=kinds)


def _by_text(ds):
    return {t: ds.label_names[y] for s in ds.splits.values() for t, y in zip(s.texts, s.y)}


def test_a_dataset_split_by_the_kit_with_classlabel_names(capsys):
    d = _dataset()
    ds = read(d, Columns(text="text", label="label"), name="mine")
    assert "mine: 60 rows, task 'classification' (the label is a ClassLabel: its names)" in capsys.readouterr().out
    assert ds.label_names == NAMES and ds.sizes() == {"train": 48, "dev": 6, "test": 6}
    assert _by_text(ds) == {f"text {i}": NAMES[i % 3] for i in range(60)}
    assert sorted(np.bincount(ds.test.y).tolist()) == [2, 2, 2]  # stratified
    assert (
        read(d, Columns(text="text", label="label"), splits=Splits(seed=1), verbose=False).test.texts != ds.test.texts
    )


def test_a_datasetdict_keeps_its_splits():
    dd = datasets.DatasetDict(
        train=_dataset(30), validation=_dataset(9, start=100), test=_dataset(6, start=200), unsupervised=_dataset(3)
    )
    ds = read(dd, Columns(text="text", label="label"), verbose=False)
    assert ds.sizes() == {"train": 30, "dev": 9, "test": 6}
    assert ds.dev.texts == [f"text {100 + i}" for i in range(9)] and ds.test.texts[0] == "text 200"
    assert ds.info["hf_splits"] == {"train": "train", "validation": "dev", "test": "test"}
    assert ds.info["left_out_splits"] == ["unsupervised"]


def test_train_and_test_only_gets_dev_from_train_seeded():
    dd = datasets.DatasetDict(train=_dataset(60), test=_dataset(9, start=500))
    ds = read(dd, Columns(text="text", label="label"), verbose=False)
    assert ds.sizes() == {"train": 54, "dev": 6, "test": 9}
    assert set(ds.train.texts) | set(ds.dev.texts) == {f"text {i}" for i in range(60)}
    assert ds.test.texts == [f"text {500 + i}" for i in range(9)]
    assert ds.dev.texts == read(dd, Columns(text="text", label="label"), verbose=False).dev.texts
    assert ds.dev.texts != read(dd, Columns(text="text", label="label"), splits=Splits(seed=1), verbose=False).dev.texts


def test_save_to_disk_a_dataset_and_a_datasetdict(tmp_path):
    d = _dataset()
    d.save_to_disk(tmp_path / "one")
    assert data_kind(tmp_path / "one") == "hf_disk"
    ds = read(tmp_path / "one", Columns(text="text", label="label"), verbose=False)
    assert ds.name == "one" and ds.source == str(tmp_path / "one") and ds.label_names == NAMES
    assert _by_text(ds) == _by_text(read(d, Columns(text="text", label="label"), verbose=False))
    dd = datasets.DatasetDict(train=_dataset(30), validation=_dataset(6, start=100), test=_dataset(6, start=200))
    dd.save_to_disk(tmp_path / "dict")
    ds = read(tmp_path / "dict", Columns(text="text", label="label"), verbose=False)
    assert ds.sizes() == {"train": 30, "dev": 6, "test": 6} and ds.label_names == NAMES
    assert _by_text(ds) == {f"text {s + i}": NAMES[i % 3] for s, n in ((0, 30), (100, 6), (200, 6)) for i in range(n)}
    with pytest.raises(ValueError, match="CsvFormat does not apply to dict: it is a saved Hugging Face dataset"):
        read(tmp_path / "dict", Columns(text="text", label="label"), CsvFormat(delimiter=";"))
    with pytest.raises(ValueError, match="CsvFormat does not apply to mine, a Hugging Face dataset: drop fmt="):
        read(dd, Columns(text="text", label="label"), CsvFormat(), name="mine")


def test_pairs_from_a_saved_datasetdict(tmp_path):
    def pairs(n, start):
        rows = {
            "premise": [f"p {start + i}" for i in range(n)],
            "hypothesis": [f"h {start + i}" for i in range(n)],
            "label": [i % 3 for i in range(n)],
        }
        kinds = datasets.Features(
            {
                "premise": datasets.Value("string"),
                "hypothesis": datasets.Value("string"),
                "label": datasets.ClassLabel(names=["entailment", "neutral", "contradiction"]),
            }
        )
        return datasets.Dataset.from_dict(rows, features=kinds)

    datasets.DatasetDict(train=pairs(30, 0), validation=pairs(6, 100)).save_to_disk(tmp_path / "nli")
    ds = read(tmp_path / "nli", Columns(text_a="premise", text_b="hypothesis", label="label"), verbose=False)
    assert ds.task == "pairs" and ds.label_names == ["entailment", "neutral", "contradiction"]
    assert ds.sizes() == {"train": 27, "dev": 6, "test": 3}  # test cut from train
    assert ds.dev.texts_b == [f"h {100 + i}" for i in range(6)]


def test_plain_integer_and_string_labels_read_as_a_csv_would():
    ds = read(_dataset(features=False), Columns(text="text", label="label"), verbose=False)
    assert ds.label_names == ["0", "1", "2"] and ds.info["task_reason"].startswith("3 distinct integers")
    d = _dataset(label=lambda i: i / 8, features=False)
    assert read(d, Columns(text="text", label="label"), verbose=False).task == "regression"


def test_unlabelled_test_split_and_other_bad_labels():
    """GLUE's test splits carry -1 (ClassLabel's 'no label'): stop, name the split and say how to leave it out."""
    dd = datasets.DatasetDict(train=_dataset(30), test=_dataset(5, label=lambda i: -1))
    with pytest.raises(ValueError, match=r"row 1 of split 'test': the label in column 'label' is missing \(-1, a Cl"):
        read(dd, Columns(text="text", label="label"), name="glue")
    with pytest.raises(ValueError, match=r"glue, row 8: the label in column 'label' is missing \(null\)"):
        read(
            _dataset(label=lambda i: None if i == 7 else i % 2, features=False),
            Columns(text="text", label="label"),
            name="glue",
        )
    with pytest.raises(ValueError, match=r"column 'label' holds one class only \(\['0'\]\)"):
        read(_dataset(label=lambda i: 0, features=False), Columns(text="text", label="label"))
    with pytest.raises(ValueError, match=r"hf_dataset: class 'neutral' \(2, row 6\) has fewer than 3 rows"):
        read(_dataset(label=lambda i: 2 if i in (5, 50) else i % 2), Columns(text="text", label="label"))


def test_texts_that_are_not_strings_and_empty_texts():
    d = datasets.Dataset.from_dict({"text": [["a", "b"]] * 20, "label": [i % 2 for i in range(20)]})
    with pytest.raises(ValueError, match=r"hf_dataset, row 1: the text in column 'text' is a list"):
        read(d, Columns(text="text", label="label"))
    texts = [None if i == 3 else "" if i == 8 else f"t {i}" for i in range(30)]
    d = datasets.Dataset.from_dict({"text": texts, "label": [i % 2 for i in range(30)]})
    with pytest.raises(ValueError, match=r"row 4: the text in column 'text' is null"):
        read(d, Columns(text="text", label="label"))
    ds = read(d, Columns(text="text", label="label"), skip_empty=True, verbose=False)
    assert sum(ds.sizes().values()) == 28 and ds.info["skipped_empty"] == 2
    dd = datasets.DatasetDict(train=_dataset(30), validation=d)
    with pytest.raises(ValueError, match=r"the label column 'label' differs between the splits"):
        read(dd, Columns(text="text", label="label"))


def test_what_is_not_a_dataset_or_not_a_saved_one(tmp_path):
    with pytest.raises(KeyError, match=r"hf_dataset has no column 'review'. Its columns are \['text', 'label'\]"):
        read(_dataset(), Columns(text="review", label="label"))
    with pytest.raises(TypeError, match=r"got DataFrame.*Dataset.from_pandas"):
        read(_dataset().to_pandas(), Columns(text="text", label="label"))
    with pytest.raises(ValueError, match=r"has the splits \['test'\]: no train"):
        read(datasets.DatasetDict(test=_dataset()), Columns(text="text", label="label"))
    with pytest.raises(ValueError, match=r"Splits\(column='s'\) names a column of one Dataset"):
        read(datasets.DatasetDict(train=_dataset()), Columns(text="text", label="label"), splits=Splits(column="s"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(IsADirectoryError, match=r"empty is a folder of none of the kinds read"):
        read(tmp_path / "empty", Columns(text="text", label="label"))
    _dataset().save_to_disk(tmp_path / "saved")
    with pytest.raises(
        ValueError, match=r"state.json is a file inside a saved Hugging Face dataset; read the folder .*saved"
    ):
        read(tmp_path / "saved" / "state.json", Columns(text="text", label="label"))
    with pytest.raises(FileNotFoundError, match="No such file or folder"):
        read(tmp_path / "nope", Columns(text="text", label="label"))
    (tmp_path / "saved" / "state.json").write_text("{ not json")
    with pytest.raises(ValueError, match=r"saved: the datasets library could not read this saved dataset"):
        read(tmp_path / "saved", Columns(text="text", label="label"))


def test_without_the_datasets_library(tmp_path, monkeypatch):
    _dataset().save_to_disk(tmp_path / "saved")
    monkeypatch.setitem(sys.modules, "datasets", None)  # as if it were not installed
    with pytest.raises(ImportError) as info:
        read(tmp_path / "saved", Columns(text="text", label="label"))
    assert str(info.value) == (
        "reading a saved Hugging Face dataset needs the `datasets` library: pip install 'nlp-course-kit[hf]' "
        "(or pip install datasets)."
    )


@pytest.mark.parametrize("backend", ["torch", "jax"])
def test_datasets_imported_before_the_kit_still_builds_datasets(backend):
    # datasets checks for TensorFlow when it is imported; the kit's block under jax/torch (sys.modules[...] = None)
    # came later, so Dataset.from_dict's `import tensorflow` failed until the guard told datasets it is not there
    import os
    import subprocess

    code = (
        "import datasets, kit, kit.data as kd\n"
        "d = datasets.Dataset.from_dict({'text': [f't{i}' for i in range(30)], 'label': [i % 2 for i in range(30)]})\n"
        "print(kit.TENSORFLOW, kd.read(d, kd.Columns(text='text', label='label'), verbose=False).sizes())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "KIT_ALLOW_TENSORFLOW"} | {"KERAS_BACKEND": backend}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[-2] == "blocked {'train': 24, 'dev': 3, 'test': 3}", out.stdout
