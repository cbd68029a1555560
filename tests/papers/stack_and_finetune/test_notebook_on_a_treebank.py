"""Notebook 03 end to end on a real Universal Dependencies treebank: `kit run 03 --data web.conllu`.

Google's Turkish Web Treebank (CoNLL-U, from its PyPI wheel; `kit.data.conllu.turkish_web_treebank`) takes the place
of the tagging task, UPOS its tags; the other tasks stay, cut to 32 examples a split (only that they run is asserted).
Sizes cut to fit CI (2 seeds, phase 1 at most 2 epochs, phase 2 one epoch, no matched-budget runs): ~2.2 minutes on
one CPU thread alone (4.4 with the other tasks at the notebook's sizes).
"""

import csv
import json
import os
import subprocess
import sys

import pytest

# the notebook runs in its own process (its backend: torch, the fastest for notebook 03 on a CPU)
pytestmark = pytest.mark.one_backend

_SMALL = {"max_train": 32, "max_eval": 32, "max_dev": 32}
TASKS = {  # the smoke tasks (stack_and_finetune_sizes.SCALES["smoke"]), the two the treebank leaves at 32 examples
    "brown_entities": {"section": "tagging", "dataset": "brown_pos", "labels": "entities", "max_words": 20,
                       "sequence_length": 32, "max_train": 128, "max_eval": 128, "max_dev": 64},
    "bbc_business_politics": {"section": "classification", "dataset": "bbc_news", "classes": ["business", "politics"],
                              "text": "headline", "sequence_length": 16, **_SMALL},
    "wordnet_pairs": {"section": "pairs", "dataset": "wordnet_pairs", "options": {"negatives": "random"},
                      "sequence_length": 24, **_SMALL},
}  # fmt: skip
SIZES = {
    "stack_and_finetune": {
        "seeds": [0, 1],
        "matched_budget": False,
        "phase1_epochs": 2,
        "phase2_epochs": 1,
        "tasks": TASKS,
    }
}


def test_notebook_03_trains_on_the_treebanks_upos(web_conllu, tmp_path):
    out = tmp_path / "run"
    env = os.environ | {"KERAS_BACKEND": "torch", "KIT_SCALE": "smoke", "KIT_SIZES": json.dumps(SIZES)}
    command = [sys.executable, "-m", "kit.cli", "run", "03", "--data", str(web_conllu), "--in-process"]
    done = subprocess.run([*command, "--out", str(out)], env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    notebook = (out / "03_stack_and_finetune.ipynb").read_text()
    assert "YOUR DATA: " in notebook and "(tagged tokens, CoNLL-U, tag field upos)" in notebook
    assert "web.conllu: 2,541 sentences, 14 UPOS tags (field 4)" in notebook
    assert "your data 'web' (tagging) takes the place of the tagging task 'brown_entities'" in notebook
    with open(out / "results.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["task"] == "web" and r["metric"] == "token_accuracy"]
    runs = {(r["model"], r["strategy"]) for r in rows}
    assert runs == {("light", "finetune_only"), ("bilstm", "stack_only"), ("bilstm", "stack_and_finetune")}
    assert len(rows) == 6  # 3 strategies x 2 seeds
    # 14 tags: a model that learned nothing sits near 1/14; the most frequent tag (NOUN) is ~0.3-0.4 of the words
    assert all(0.25 < float(r["value"]) <= 1 for r in rows), rows
