"""kit.data.own: the user's file from `kit run NN --data ...`, read by kit.data.read in the notebook."""

import pytest

from kit.data.own import OwnData, notebook_dataset

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend

SENTENCE = "EU NNP B-NP B-ORG\nrejects VBZ B-VP O\nGerman JJ B-NP B-MISC\ncall NN I-NP O\n. . O O\n"


def _conll(n=40):
    body = "".join(SENTENCE.replace("German", f"German{i}") + "\n" for i in range(n))
    return "-DOCSTART- -X- -X- O\n\n" + body


def _write(path, content: bytes):
    path.write_bytes(content)
    return path


def test_notebook_parameters_from_env(tmp_path, monkeypatch):
    """`kit run NN --data ...` sets KIT_DATA_FILE & co.; a notebook that cannot use pairs stops at once."""
    p = tmp_path / "mine.csv"
    p.write_text("q1,q2,dup\n" + "".join(f"a {i},b {i},{i % 2}\n" for i in range(30)))
    for var in ("KIT_DATA_FILE", "KIT_TEXT", "KIT_LABEL", "KIT_TEXT_A", "KIT_TEXT_B", "KIT_TASK"):
        monkeypatch.delenv(var, raising=False)
    assert OwnData.from_env() is None
    assert notebook_dataset(lambda: "the default") == "the default"
    monkeypatch.setenv("KIT_LABEL", "dup")
    with pytest.raises(ValueError, match="KIT_LABEL set without KIT_DATA_FILE"):
        OwnData.from_env()
    monkeypatch.setenv("KIT_DATA_FILE", str(p))
    monkeypatch.setenv("KIT_TEXT_A", "q1")
    monkeypatch.setenv("KIT_TEXT_B", "q2")
    assert OwnData.from_env().name == p.name  # banners name the user's file, its columns and the task
    assert OwnData.from_env().describe() == f"{p} (text_a='q1', text_b='q2', label='dup')"
    with pytest.raises(ValueError, match="Notebook 02 needs single texts with class labels.*gives task 'pairs'"):
        notebook_dataset(lambda: None, notebook="Notebook 02")
    ds = notebook_dataset(lambda: None, tasks=("pairs",), needs="pairs", verbose=False)
    assert ds.task == "pairs" and ds.name == "mine"


def test_own_tagged_data_replaces_notebook_03s_tagging_task(tmp_path, monkeypatch):
    from kit.papers.stack_and_finetune.stack_and_finetune_sizes import SCALES
    from kit.papers.stack_and_finetune.stack_and_finetune_tasks import with_own_data

    monkeypatch.setenv("KIT_DATA_FILE", str(_write(tmp_path / "mine.conll", _conll(200).encode())))
    own = OwnData.from_env()
    assert own.is_tagged and own.describe() == f"{tmp_path / 'mine.conll'} (tagged tokens, CoNLL form, tag column -1)"
    ds = own.load(verbose=False)
    specs = SCALES["smoke"]["tasks"]
    new_specs, new_data = with_own_data(specs, {name: None for name in specs}, ds)
    assert list(new_specs) == ["bbc_business_politics", "wordnet_pairs", "mine"]
    assert new_specs["mine"]["section"] == "tagging" and new_specs["mine"]["sequence_length"] == 32
    assert new_data["mine"].sizes() == {"train": 128, "dev": 20, "test": 20}
    assert new_data["mine"].label_names == ["B-MISC", "B-ORG", "O"]
