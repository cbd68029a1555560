"""Notebook 02's runs: TLM's data step, its tokens, one TLM run, and the pretrained baseline on the same data.

The data step: BM25 with the task texts as queries, random retrieval as the control; one run: stage 1 (joint MLM + task,
:func:`kit.train.train_stage1`), stage 2 (the task alone, :func:`kit.train.fit_classifier`), the scores. Your own
general corpus: ``KIT_TLM_CORPUS``.

>>> settings({"tasks": {"news": "news"}, "ablation_task": "news", "k": 8, "rho1": 3, "rho2": 20, "k_ablation": [2],
...           "rho1_ablation": [], "rho2_ablation": [0]})[-1]
('news', {'retrieval': 'bm25', 'K': 8, 'rho1': 3, 'rho2': 0})
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from dataclasses import dataclass

import keras
import numpy as np

from ... import config
from ...analysis import training_flops
from ...data import general_corpus, load
from ...models import TLMModel, build_classifier, load_backbone, save_bundle, tlm_backbone
from ...models.truncate import truncate_backbone
from ...results import RunResult
from ...retrieval import BM25Retriever, random_retrieval, select_external, task_text_mask
from ...text import CompactVocabulary, MLMMasker
from ...train import FitRecipe, Stage1Recipe, evaluate_mlm, fit_classifier, train_stage1
from .. import experiment as base
from .tlm_sizes import MODELS, task_sizes

#: The Sweep keys of notebook 02's ``results.csv`` (then ``metric, value``).
KEYS = ("experiment", "task", "retrieval", "K", "rho1", "rho2", "seed")
#: Where to find your own general corpus: a text file, one passage per line.
CORPUS_ENV = "KIT_TLM_CORPUS"


def load_tasks(sizes: dict, own=None) -> dict:
    """``{name: TextDataset}``: the scale's ``tasks``, or your data set ``own`` alone.

    Each is subsampled to ``max_train`` / ``max_eval``.
    """
    if own is not None:
        return {own.name: own.subsample(sizes["max_train"], sizes["max_eval"], seed=0)}
    return {
        name: load(name, max_train=sizes["max_train"], max_eval=sizes["max_eval"], seed=0) for name in sizes["tasks"]
    }


def load_corpus() -> tuple[list, np.ndarray]:
    """The general corpus ``(passages, origin of each)``: yours (``KIT_TLM_CORPUS``) or the kit's.

    Yours is a UTF-8 text file, one passage per line (blank lines skipped), every origin ``"your corpus"``.
    """
    if os.environ.get(CORPUS_ENV):
        with open(os.environ[CORPUS_ENV], encoding="utf-8") as f:
            corpus = [line.strip() for line in f if line.strip()]
        return corpus, np.array(["your corpus"] * len(corpus))
    general = general_corpus()
    return general.splits["all"].texts, np.array(general.info["origin"])


def cap_selection(sel, limit: int | None):
    """A BM25 selection (a :class:`kit.retrieval.ExternalSelection`) cut to its ``limit`` best passages (None: all).

    Best rank first, then the higher BM25 score: every query's top passage comes before any query's second one. Returns
    ``sel`` itself when it fits, else a copy (doc ids ascending, as in ``sel``).
    """
    if limit is None or len(sel) <= limit:
        return sel
    keep = np.sort(np.lexsort((-sel.score, sel.best_rank))[:limit])
    return dataclasses.replace(
        sel,
        doc_ids=sel.doc_ids[keep],
        best_rank=sel.best_rank[keep],
        query_id=sel.query_id[keep],
        score=sel.score[keep],
    )


def retrieve(tasks: dict, corpus: list, sizes: dict) -> tuple[dict, dict]:
    """TLM's data step for every task: BM25 with each training text as a query, and random retrieval of the same size.

    One BM25 index (Lucene's variant) serves every task; the task's own texts (train, dev, test) are kept out. With
    ``max_corpus_share`` set, each BM25 selection keeps at most that share of the corpus (:func:`cap_selection`). Each
    selection's size and share of the corpus is printed.

    Returns ``(selections, found_by)``: ``selections[(task, "bm25", K)]`` (doc ids of the union of each training text's
    top-K; ``k``, and ``k_ablation`` for ``ablation_task``), ``selections[(task, "random", K)]`` (random, same size,
    seed 0), ``found_by[(task, K)]`` (the :class:`kit.retrieval.ExternalSelection`).
    """
    t0 = time.perf_counter()
    retriever = BM25Retriever(corpus, method="lucene")
    print(f"BM25 index over {len(corpus):,} passages: {time.perf_counter() - t0:.1f} s")
    share = sizes.get("max_corpus_share")
    limit = None if share is None else int(share * len(corpus))
    selections, found_by = {}, {}
    for name, ds in tasks.items():
        keep_out = ds.dev.texts + ds.test.texts
        main_k = task_sizes(sizes, name)["k"]
        for k in [main_k] + (sizes["k_ablation"] if name == sizes["ablation_task"] else []):
            t0 = time.perf_counter()
            found = select_external(ds.train.texts, corpus, k=k, retriever=retriever, exclude_texts=keep_out)
            sel = cap_selection(found, limit)
            selections[(name, "bm25", k)], found_by[(name, k)] = sel.doc_ids, sel
            cut = f" (cut from {len(found):,}: at most {share:.0%} of the corpus)" if len(sel) < len(found) else ""
            print(
                f"{name} K={k}: {len(sel):,} passages{cut}, {len(sel) / len(corpus):.1%} of the corpus, from "
                f"{sel.n_queries} queries in {time.perf_counter() - t0:.1f} s"
            )
        exclude = np.flatnonzero(task_text_mask(corpus, ds.train.texts + keep_out))
        selections[(name, "random", main_k)] = random_retrieval(
            len(corpus), len(selections[(name, "bm25", main_k)]), seed=0, exclude=exclude
        )
    return selections, found_by


@dataclass
class Tokens:
    """The WordPiece ids of the tasks and of every retrieved passage, the compact vocabulary and the masker.

    ``task_ids``: ``{task: {split: the preprocessor's dict}}`` on the full vocabulary; ``x``: the same on the compact
    ``vocabulary`` (what the TLM models read); ``corpus_ids``: every selected passage's; ``row_of[doc id]``: its row
    there (-1: not tokenized); ``masker``: the :class:`kit.text.MLMMasker` on the compact vocabulary.
    """

    task_ids: dict
    x: dict
    corpus_ids: dict
    row_of: np.ndarray
    vocabulary: object
    masker: object

    @classmethod
    def prepare(cls, tasks: dict, corpus: list, selections: dict, preprocessor, vocabulary_size: int) -> Tokens:
        """Tokenize the passages any selection holds and the tasks' texts; build the compact vocabulary.

        It keeps the ``vocabulary_size`` most frequent ids of the retrieved passages and training texts
        (:class:`kit.text.CompactVocabulary`).
        """
        needed = np.unique(np.concatenate(list(selections.values())))
        corpus_ids = preprocessor([corpus[i] for i in needed])
        row_of = np.full(len(corpus), -1)
        row_of[needed] = np.arange(len(needed))
        task_ids = {
            name: {s: preprocessor(ds[s].texts) for s in ("train", "dev", "test")} for name, ds in tasks.items()
        }
        tok = preprocessor.tokenizer
        vocab = CompactVocabulary.for_tokenizer(
            tok, [corpus_ids["token_ids"]] + [v["train"]["token_ids"] for v in task_ids.values()], vocabulary_size
        )
        masker = MLMMasker.for_tokenizer(tok, preprocessor.sequence_length, vocabulary=vocab)
        x = {name: {s: vocab(v) for s, v in splits.items()} for name, splits in task_ids.items()}
        return cls(task_ids, x, corpus_ids, row_of, vocab, masker)

    def external(self, doc_ids) -> dict:
        """The compact inputs (the preprocessor's dict) of the passages ``doc_ids`` (each among the tokenized ones)."""
        return self.vocabulary({k: v[self.row_of[doc_ids]] for k, v in self.corpus_ids.items()})


def with_model(sizes: dict) -> dict:
    """The sizes with the named TLM model's shape (``sizes["model"]``, a key of ``tlm_sizes.MODELS``) filled in.

    ``"kit"`` keeps the scale's own ``num_layers`` ... ``intermediate_dim``.

    Raises:
        ValueError: an unknown model name.

    Example:
        >>> z = with_model({"model": "bert_base", "num_layers": 2, "num_heads": 4, "hidden_dim": 64})
        >>> z["num_layers"], z["num_heads"], z["hidden_dim"], z["intermediate_dim"]
        (12, 12, 768, 3072)
    """
    name = sizes.get("model", "kit")
    if name != "kit" and name not in MODELS:
        raise ValueError(f"Unknown TLM model {name!r}; set sizes 'model' to 'kit' or one of {sorted(MODELS)}.")
    return {**sizes, **MODELS.get(name, {})}


def stage1_flops(sizes: dict, params: int) -> float:
    """Stage 1's training FLOPs, the paper's way: 6 x tokens x parameters, tokens = steps x batch x sequence length.

    Example:
        >>> f"{stage1_flops({'stage1_steps': 100000, 'batch_size': 256, 'sequence_length': 128}, 109_000_000):.2e}"
        '2.14e+18'
    """
    tokens = sizes["stage1_steps"] * sizes["batch_size"] * sizes["sequence_length"]
    return float(training_flops(tokens, params))


def main_setting(sizes: dict, task: str | None = None) -> dict:
    """The paper's main setting, ``{"retrieval": "bm25", "K", "rho1", "rho2"}``, as the sizes say (``task``'s own)."""
    s = sizes if task is None else task_sizes(sizes, task)
    return dict(retrieval="bm25", K=s["k"], rho1=s["rho1"], rho2=s["rho2"])


def settings(sizes: dict) -> list[tuple]:
    """Every task's main setting and its random-retrieval control, then the ablations on the ablation task.

    ``(task, setting)`` pairs; ablations: the other K, "only task data" (rho1 = 0, no retrieval), the other rho1, rho2.
    """
    main, a = main_setting(sizes, sizes["ablation_task"]), sizes["ablation_task"]
    out = []
    for name in sizes["tasks"]:
        own = main_setting(sizes, name)
        out += [(name, own), (name, {**own, "retrieval": "random"})]
    out += [(a, {**main, "K": k}) for k in sizes["k_ablation"]] + [
        (a, {**main, "rho1": 0, "K": 0, "retrieval": "none"})
    ]
    out += [(a, {**main, "rho1": r}) for r in sizes["rho1_ablation"]] + [
        (a, {**main, "rho2": r}) for r in sizes["rho2_ablation"]
    ]
    return out


def plan(setting_rows: list, sizes: dict, tasks: dict) -> list[dict]:
    """Every setting for every seed, with its optimizer steps (stage 1's, then stage 2's epochs).

    One dict per run: ``experiment="tlm", task, retrieval, K, rho1, rho2, seed, steps``.
    """
    stage2 = lambda name: sizes["stage2_epochs"] * math.ceil(len(tasks[name].train) / sizes["batch_size"])  # noqa: E731
    return [
        dict(experiment="tlm", task=name, **s, seed=seed, steps=sizes["stage1_steps"] + stage2(name))
        for name, s in setting_rows
        for seed in sizes["seeds"]
    ]


def baseline_plan(sizes: dict, tasks: dict) -> list[dict]:
    """The pretrained baseline (``experiment="minilm_finetuned"``): every task for every seed, with its optimizer steps.

    Its keys hold ``retrieval="-"``, K, rho1, rho2 = 0.
    """
    return [
        dict(
            experiment="minilm_finetuned",
            task=name,
            retrieval="-",
            K=0,
            rho1=0,
            rho2=0,
            seed=seed,
            steps=sizes["baseline_epochs"] * math.ceil(len(tasks[name].train) / sizes["baseline_batch"]),
        )
        for name in tasks
        for seed in sizes["seeds"]
    ]


def scores(model, x, y) -> tuple[float, float]:
    """``(accuracy, macro-F1)`` of a classifier's argmax on ``x``."""
    return scores_of(predict_labels(model, x), y)


def predict_labels(model, x) -> np.ndarray:
    """A classifier's predicted class (int32, the argmax of its outputs) for every example of ``x``."""
    return model.predict(x, batch_size=128, verbose=0).argmax(-1).astype("int32")


def scores_of(pred, y) -> tuple[float, float]:
    """``(accuracy, macro-F1)`` of predicted classes against the labels.

    Example:
        >>> scores_of([0, 1, 1, 0], [0, 1, 0, 0])
        (0.75, 0.7333333333333334)
    """
    from sklearn.metrics import f1_score

    pred, y = np.asarray(pred), np.asarray(y)
    return float((pred == y).mean()), float(f1_score(y, pred, average="macro"))


def plain_run(row) -> dict:
    """A run's keys as the plan wrote them, from a dict or a row of the runs table (pandas reads ``K=8`` back as 8.0).

    Example:
        >>> plain_run(dict(experiment="tlm", task="news", retrieval="bm25", K=8.0, rho1=3, rho2=20.0, seed=1))["K"]
        8
    """
    return {k: _plain(row[k]) for k in KEYS}


def _plain(value):
    """A key's value as the plan wrote it (pandas reads ``K=8`` back as ``8.0`` or ``np.int64``)."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return int(value)
    return value.item() if isinstance(value, np.generic) else value


def stage1_recipe(sizes: dict, rho1: float, rho2: float, chunks: int = 4) -> Stage1Recipe:
    """Stage 1's recipe at this scale for one setting's ``rho1`` and ``rho2`` (4 chunks: 4 points of the loss curve).

    ``rho1``: external batches per internal one; ``rho2``: the internal MLM loss's weight; ``chunks``: ``fit`` calls.

    Example:
        >>> from kit.papers.tlm.tlm_sizes import DEFAULTS, SCALES
        >>> r = stage1_recipe({**DEFAULTS, **SCALES["smoke"]}, rho1=3, rho2=20)
        >>> r.steps, r.batch_size, r.learning_rate, r.mlm_prior
        (160, 32, 0.002, 'unigram')
    """
    return Stage1Recipe(
        rho1=rho1,
        rho2=rho2,
        steps=sizes["stage1_steps"],
        batch_size=sizes["batch_size"],
        learning_rate=sizes["stage1_lr"],
        warmup=sizes["warmup"],
        chunks=chunks,
        mlm_prior=sizes.get("mlm_prior", "unigram"),
    )


def stage2_recipe(sizes: dict) -> FitRecipe:
    """Stage 2's recipe: the classifier alone on the task loss, AdamW decayed linearly to 0 (``stage2_*``).

    Example:
        >>> r = stage2_recipe({"stage2_lr": 1e-3, "stage2_epochs": 4, "batch_size": 32})
        >>> r.learning_rate, r.epochs, r.batch_size, r.schedule
        (0.001, 4, 32, 'linear')
    """
    return FitRecipe(sizes["stage2_lr"], sizes["stage2_epochs"], sizes["batch_size"], schedule="linear")


def baseline_recipe(sizes: dict) -> FitRecipe:
    """The fine-tuned baseline's recipe (the paper's: AdamW, the rate decayed linearly to 0; ``baseline_*``).

    Example:
        >>> baseline_recipe({"baseline_lr": 2e-4, "baseline_epochs": 1, "baseline_batch": 32}).schedule
        'linear'
    """
    return FitRecipe(sizes["baseline_lr"], sizes["baseline_epochs"], sizes["baseline_batch"], schedule="linear")


def new_tlm_model(sizes: dict, tokens, num_classes: int, seed: int, pooling: str | None = None):
    """A TLM model from scratch (BERT + task head + tied MLM head) on ``tokens``' compact vocabulary, seeded first.

    ``pooling``: where the task head reads (``"mean"`` or ``"cls"``; None: ``sizes["pooling"]``).
    """
    config.set_seed(seed)
    backbone = tlm_backbone(
        tokens.vocabulary.size,
        sizes["num_layers"],
        sizes["num_heads"],
        sizes["hidden_dim"],
        sizes["intermediate_dim"],
        max_sequence_length=sizes["sequence_length"],
        dropout=sizes["dropout"],
    )
    return TLMModel(
        backbone,
        num_classes,
        tokens.masker.max_predictions,
        dropout=sizes["dropout"],
        pooling=pooling or sizes["pooling"],
    )


class Experiment(base.Experiment):
    """Notebook 02's runs on its tasks and tokens: a TLM run or the fine-tuned baseline (:meth:`run_one`).

    :meth:`plan` is every TLM setting for every seed, :meth:`baseline_plan` the baseline's runs; :meth:`run_one` runs
    either (its ``experiment`` key says which). Each run's predicted test classes (``final``; for TLM also ``stage1``)
    are saved with it. Kept: each task's main TLM model (first seed) as ``out/tlm_<task>.keras`` (section 7 reads it),
    the ablation task's classifier as ``out/best_model/`` (a bundle) and its fine-tuned baseline's backbone as
    ``out/minilm_finetuned_<task>.keras``. Stage 1 runs in 4 chunks, its MLM loss curve a point after each. ``encoder``:
    :func:`kit.models.load_backbone`'s (the baseline; its preprocessor saved with the bundle).
    """

    KEYS = KEYS

    def __init__(self, sizes: dict, tasks: dict, tokens: Tokens, selections: dict, encoder, out):
        self.sizes, self.tasks, self.tokens, self.selections = sizes, tasks, tokens, selections
        self.encoder = encoder
        data = {n: d.sizes() for n, d in tasks.items()}
        super().__init__(out, {**sizes, "scale": config.scale(), "precision": config.precision(), "data": data})

    def plan(self) -> list[dict]:
        """Every TLM setting (:func:`settings`) for every seed, with its optimizer steps (:func:`plan`)."""
        return plan(settings(self.sizes), self.sizes, self.tasks)

    def baseline_plan(self) -> list[dict]:
        """The fine-tuned baseline's runs: every task for every seed (:func:`baseline_plan`)."""
        return baseline_plan(self.sizes, self.tasks)

    def make_tlm(self, num_classes: int, seed: int):
        """A TLM model from scratch (:class:`kit.models.TLMModel`) of the scale's shape, compact vocabulary, seeded."""
        return new_tlm_model(self.sizes, self.tokens, num_classes, seed)

    def external(self, run: dict):
        """The compact inputs of ``run``'s retrieved passages (None for rho1 = 0: task data only)."""
        if run["rho1"] == 0:
            return None
        return self.tokens.external(self.selections[(run["task"], run["retrieval"], run["K"])])

    def run_one(self, run: dict) -> RunResult:
        """One run of :meth:`plan` (stage 1, then :meth:`finish`) or :meth:`baseline_plan` (:meth:`run_baseline`)."""
        if run["experiment"] != "tlm":
            return self.run_baseline(run)
        start = time.perf_counter()
        keras.backend.clear_session()  # the previous run's models go before this one's weights are drawn
        ds, x = self.tasks[run["task"]], self.tokens.x[run["task"]]
        model = self.make_tlm(ds.num_classes, run["seed"])
        recipe = stage1_recipe(self.sizes, run["rho1"], run["rho2"])
        s1 = train_stage1(
            model, (x["train"], ds.train.y), self.external(run), self.tokens.masker, recipe, seed=run["seed"]
        )
        result = self.finish(run, model, s1)
        result.seconds = time.perf_counter() - start
        return result

    def finish(self, run: dict, model, s1) -> RunResult:
        """After stage 1: its scores and the MLM's on dev texts, stage 2 (the task loss alone), the final scores.

        The :class:`kit.results.RunResult`: scores after each stage, MLM accuracy and loss, passages, parameters,
        tokens, FLOPs, stage 1's MLM loss curve; steps trained (both stages) and stage 2's epochs; predicted test
        classes after each stage; the model (its classifier in ``details``).
        """
        s, task, seed = self.sizes, run["task"], run["seed"]
        ds, x = self.tasks[task], self.tokens.x[task]
        clf = model.classifier()
        stage1_pred = predict_labels(clf, x["test"])
        stage1_acc, stage1_f1 = scores_of(stage1_pred, ds.test.y)
        mlm = evaluate_mlm(model, x["dev"], self.tokens.masker)
        fit = fit_classifier(clf, (x["train"], ds.train.y), (x["dev"], ds.dev.y), stage2_recipe(s), seed=seed)
        pred = predict_labels(clf, x["test"])
        acc, f1 = scores_of(pred, ds.test.y)
        tokens = s1.tokens + fit.steps * s["batch_size"] * s["sequence_length"]
        curve = {f"stage1_mlm_loss_step{i}": v for i, v in zip(s1.curve["step"], s1.curve["mlm_loss"])}
        passages = 0 if run["rho1"] == 0 else len(self.selections[(task, run["retrieval"], run["K"])])
        metrics = dict(
            test_accuracy=acc,
            test_macro_f1=f1,
            stage1_test_accuracy=stage1_acc,
            stage1_test_macro_f1=stage1_f1,
            dev_accuracy=fit.best_dev_accuracy,
            mlm_accuracy=mlm["mlm_accuracy"],
            mlm_loss=mlm["mlm_loss"],
            external_passages=passages,
            params=model.count_params(),
            train_tokens=tokens,
            flops=training_flops(tokens, model.count_params()),
            **curve,
        )
        stage2 = fit.trained
        return RunResult(
            metrics,
            seconds=s1.seconds + fit.seconds,
            trained={"steps": s1.steps + stage2["steps"], "stage1_steps": s1.steps, "stage2_epochs": stage2["epochs"]},
            predictions={"final": pred, "stage1": stage1_pred},
            model=model,
            details={"classifier": clf},
        )

    def run_baseline(self, run: dict) -> RunResult:
        """The pretrained encoder fine-tuned on the task (the paper's recipe: AdamW, rate decayed linearly to 0).

        Its :class:`kit.results.RunResult`: test accuracy and macro-F1, parameters, tokens, FLOPs; steps and epochs
        trained; predicted test classes (``final``); the fine-tuned backbone (``model``).
        """
        start = time.perf_counter()
        keras.backend.clear_session()
        s, ds, x = self.sizes, self.tasks[run["task"]], self.tokens.task_ids[run["task"]]
        config.set_seed(run["seed"])
        pretrained = load_backbone(self.encoder.name, sequence_length=s["sequence_length"])
        backbone = truncate_backbone(pretrained.backbone, s["baseline_layers"])
        clf = build_classifier(backbone, ds.num_classes, dropout=0.1, pooling=s["baseline_pooling"])
        fit = fit_classifier(clf, (x["train"], ds.train.y), (x["dev"], ds.dev.y), baseline_recipe(s), seed=run["seed"])
        pred = predict_labels(clf, x["test"])
        acc, f1 = scores_of(pred, ds.test.y)
        tokens, params = fit.steps * s["baseline_batch"] * s["sequence_length"], backbone.count_params()
        metrics = dict(
            test_accuracy=acc,
            test_macro_f1=f1,
            params=params,
            train_tokens=tokens,
            flops=training_flops(tokens, params),
        )
        return RunResult(
            metrics,
            seconds=time.perf_counter() - start,
            trained=fit.trained,
            predictions={"final": pred},
            model=backbone,
        )

    def keep(self, run: dict, result: RunResult) -> None:
        """Keep the main TLM model of each task (first seed), the ablation task's classifier and baseline backbone."""
        s, task = self.sizes, run["task"]
        if run["seed"] != s["seeds"][0]:
            return
        if run["experiment"] != "tlm":
            if task == s["ablation_task"]:
                result.model.save(self.out / f"minilm_finetuned_{task}.keras")  # for the attention heads
            return
        if all(run[k] == v for k, v in main_setting(s, task).items()):
            result.model.save(self.out / f"tlm_{task}.keras")  # the main model of each task, for section 7
            if task == s["ablation_task"]:
                save_bundle(
                    self.out / "best_model",
                    result.details["classifier"],
                    preprocessor=self.encoder.preprocessor,
                    vocabulary=self.tokens.vocabulary,
                    label_names=self.tasks[task].label_names,
                    info={"notebook": "02", "task": task, "test_accuracy": result.metrics["test_accuracy"]},
                )

    def predictions_of(self, row) -> dict:
        """The predictions saved for a run, given as a dict or a row of the runs table (:func:`plain_run`)."""
        return self.predictions(plain_run(row))
