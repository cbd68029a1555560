"""Parsers: one function per file format, each from a folder to plain Python rows (splitting is the caller's).

Bad input raises a clear error naming the file (and line, for text formats).
"""

from __future__ import annotations

import ast
import bz2
import csv
import gzip
import json
import re
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np


def _need(path: Path, what: str) -> Path:
    if not path.exists():
        raise FileNotFoundError(
            f"Expected {what} at {path}, but it is not there. Point path=... at the folder "
            "that holds it (the unpacked release), or delete the cached copy and fetch again."
        )
    return path


def read_text(path: Path) -> str:
    """A text file's text: UTF-8 (BOM-tolerant), falling back to Latin-1 for old files."""
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def lines(text: str) -> list[str]:
    r"""Split on line feeds only (CRLF tolerated); no empty last line for a final line feed.

    ``str.splitlines`` also breaks at U+2028, U+0085, form feeds ..., which can sit inside a text field.

    Example:
        >>> lines("a\u2028b\tc\r\nd\n")
        ['a\u2028b\tc', 'd']
    """
    out = text.split("\n")
    if out and out[-1] == "":
        out.pop()
    return [line[:-1] if line.endswith("\r") else line for line in out]


# --- VADER ground truth (Hutto & Gilbert 2014): id \t mean rating \t text ----------

VADER_FILES = {
    "rt_snippets": "movieReviewSnippets_GroundTruth.txt",
    "amazon_snippets": "amazonReviewSnippets_GroundTruth.txt",
    "nyt_snippets": "nytEditorialSnippets_GroundTruth.txt",
    "tweets": "tweets_GroundTruth.txt",
}
#: Five-class bins on the mean rating (-4..+4): lower edge inclusive.
FIVE_CLASS_EDGES = (-2.4, -0.8, 0.8, 2.4)
FIVE_CLASS_NAMES = ["very negative", "negative", "neutral", "positive", "very positive"]


def parse_vader(folder: Path, which: str) -> tuple[list[str], np.ndarray]:
    """The texts and mean human ratings of one VADER ground-truth file (``id<TAB>rating<TAB>text``).

    ``which``: the file's key in :data:`VADER_FILES`. Ratings are float64 means on -4..+4 (float64: bin edges like -2.4
    must compare exactly). A line with under three fields, or a rating that is not a number, raises ValueError.
    """
    path = _need(Path(folder) / VADER_FILES[which], f"the VADER file {VADER_FILES[which]}")
    texts, ratings = [], []
    for lineno, line in enumerate(lines(read_text(path)), 1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) < 3:
            raise ValueError(f"{path.name}, line {lineno}: expected 'id<TAB>rating<TAB>text', got {line[:80]!r}")
        try:
            ratings.append(float(parts[1]))
        except ValueError:
            raise ValueError(f"{path.name}, line {lineno}: rating {parts[1]!r} is not a number") from None
        texts.append("\t".join(parts[2:]).strip())
    return texts, np.asarray(ratings, dtype="float64")  # float64: bin edges like -2.4 must compare exactly


def vader_targets(ratings: np.ndarray, target: str):
    """VADER's mean ratings (-4..+4) as ``(keep_mask, labels, label_names)`` for ``target``.

    ``target``: ``"binary"`` (positive > 0; the neutral 0.0 dropped), ``"5class"`` (bins at :data:`FIVE_CLASS_EDGES`,
    lower edge inclusive) or ``"rating"`` (the number, float32; ``label_names`` None).
    """
    if target == "binary":
        keep = ratings != 0
        return keep, (ratings[keep] > 0).astype("int32"), ["negative", "positive"]
    if target == "5class":
        keep = np.ones(len(ratings), bool)
        return keep, np.digitize(ratings, FIVE_CLASS_EDGES).astype("int32"), list(FIVE_CLASS_NAMES)
    if target == "rating":
        keep = np.ones(len(ratings), bool)
        return keep, ratings.astype("float32"), None
    raise ValueError(f"Unknown target {target!r}: use 'binary', '5class' or 'rating'.")


# --- BBC News (Greene & Cunningham 2006): <class>/<nnn>.txt --------------------------


def parse_bbc(folder: Path) -> tuple[list[str], list[str]]:
    """BBC News' articles (title + body, a paragraph per line) and their labels, the topic folders' names.

    FileNotFoundError when ``folder`` has no topic folders (``business/``, ``tech/``, ...).
    """
    folder = Path(folder)
    classes = sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
    if not classes:
        raise FileNotFoundError(f"No topic folders (business/, tech/, ...) under {folder}.")
    texts, labels = [], []
    for c in classes:
        for f in sorted((folder / c).glob("*.txt")):
            body = read_text(f).strip()
            body = re.sub(r"\s*\n\s*\n\s*", "\n", body)  # one paragraph per line
            texts.append(body)
            labels.append(c)
    return texts, labels


# --- Brown corpus, tagged (word/tag tokens, one sentence per line) -------------------

_BROWN_SUFFIXES = ("-tl", "-hl", "-nc")


def simplify_brown_tag(tag: str) -> str:
    """Drop Brown's title/headline/cited markers and the foreign-word prefix, lower-cased: ``np-tl`` → ``np``.

    Example:
        >>> simplify_brown_tag("NP-TL"), simplify_brown_tag("fw-nps-hl")
        ('np', 'nps')
    """
    t = tag.lower()
    if t.startswith("fw-"):
        t = t[3:]
    changed = True
    while changed:
        changed = False
        for suf in _BROWN_SUFFIXES:
            if t.endswith(suf) and len(t) > len(suf):
                t, changed = t[: -len(suf)], True
    return t


def parse_brown(folder: Path, simplify: bool = True):
    """The Brown corpus' files ``ca01`` ... ``cr09`` (``word/tag`` tokens, a sentence per line).

    Returns ``[(doc_id, genre, [(tokens, tags), ...]), ...]``: the file's name and its genre letter (``a`` ... ``r``);
    ``simplify`` folds the tags with :func:`simplify_brown_tag`. No Brown files, or a token not ``word/tag``: an error.
    """
    folder = Path(folder)
    files = sorted(p for p in folder.glob("c[a-r][0-9][0-9]") if p.is_file())
    if not files:
        raise FileNotFoundError(f"No Brown files (ca01 ... cr09) in {folder}.")
    docs = []
    for f in files:
        sents = []
        for lineno, line in enumerate(lines(read_text(f)), 1):
            line = line.strip()
            if not line:
                continue
            tokens, tags = [], []
            for item in line.split():
                word, sep, tag = item.rpartition("/")
                if not sep or not word:
                    raise ValueError(f"{f.name}, line {lineno}: token {item!r} is not word/tag")
                tokens.append(word)
                tags.append(simplify_brown_tag(tag) if simplify else tag)
            sents.append((tokens, tags))
        docs.append((f.name, f.name[1], sents))
    return docs


# --- Wikipedia XML dump (bz2) -> plain paragraphs ------------------------------------

_WIKI_RES = [
    (re.compile(r"<!--.*?-->", re.S), ""),
    (re.compile(r"<ref[^>]*/>", re.S), ""),
    (re.compile(r"<ref.*?</ref>", re.S), ""),
    (re.compile(r"<math.*?</math>", re.S), ""),
    (re.compile(r"<(gallery|timeline|table|source|syntaxhighlight)[^>]*>.*?</\1>", re.S | re.I), ""),
    (re.compile(r"\{\|.*?\|\}", re.S), ""),  # tables
    (
        re.compile(
            r"\[\[(?:File|Image|Category|[a-z]{2,3}(?:-[a-z]+)?):[^\[\]]*(?:\[\[[^\[\]]*\]\][^\[\]]*)*\]\]", re.I
        ),
        "",
    ),
    (re.compile(r"\[\[(?:[^\[\]|]*\|)?([^\[\]|]*)\]\]"), r"\1"),  # [[a|b]] -> b, [[a]] -> a
    (re.compile(r"\[https?://[^\s\]]+\s*([^\]]*)\]"), r"\1"),
    (re.compile(r"'{2,}"), ""),
    (re.compile(r"^=+.*?=+\s*$", re.M), "\n"),  # headings end a paragraph
    (re.compile(r"^[*#:;|!].*$", re.M), ""),  # lists, indents, table rows
    (re.compile(r"<[^>]+>"), ""),
    (re.compile(r"&nbsp;|&ndash;|&mdash;"), " "),
]


def _strip_templates(text: str) -> str:
    out, depth, i = [], 0, 0
    while i < len(text):
        two = text[i : i + 2]
        if two == "{{":
            depth += 1
            i += 2
        elif two == "}}" and depth:
            depth -= 1
            i += 2
        else:
            if depth == 0:
                out.append(text[i])
            i += 1
    return "".join(out)


def wiki_to_text(markup: str) -> str:
    """Wiki markup as plain text, paragraphs separated by blank lines (regex-based, like gensim's filter_wiki).

    Templates, references, tables, files and categories go; links keep their text; headings end a paragraph.
    """
    text = _strip_templates(markup)
    for _ in range(2):  # links nest one level inside file captions
        for rx, rep in _WIKI_RES:
            text = rx.sub(rep, text)
    return text


def parse_wiki_dump(path: Path, min_words: int = 25) -> tuple[list[str], list[str]]:
    """``(paragraphs, titles)`` of Wikipedia XML dump's articles (``.xml.bz2`` or plain; main namespace, no redirect).

    Whitespace is collapsed; paragraphs under ``min_words`` words or with leftover markup are dropped.
    """
    path = _need(Path(path), "a Wikipedia XML dump (.xml.bz2)")
    paragraphs, titles = [], []
    opener = bz2.open if path.suffix == ".bz2" else open
    with opener(path, "rb") as f:
        title, ns = None, None
        for _, elem in ET.iterparse(f, events=("end",)):
            tag = elem.tag.rsplit("}", 1)[-1]
            if tag == "title":
                title = elem.text
            elif tag == "ns":
                ns = elem.text
            elif tag == "text" and ns == "0" and elem.text and not elem.text.lower().startswith("#redirect"):
                for para in re.split(r"\n\s*\n", wiki_to_text(elem.text)):
                    para = " ".join(para.split())
                    leftover = any(m in para for m in ("[[", "]]", "{{", "}}", "|-"))
                    if len(para.split()) >= min_words and not leftover:  # drop residual markup
                        paragraphs.append(para)
                        titles.append(title or "")
            elif tag == "page":
                elem.clear()
    return paragraphs, titles


def chunk_words(text: str, max_words: int = 128) -> list[str]:
    """Split a long paragraph into passages of at most ``max_words`` words, in order (the last may be short).

    Example:
        >>> chunk_words("a b c d e", max_words=2)
        ['a b', 'c d', 'e']
    """
    words = text.split()
    return [" ".join(words[i : i + max_words]) for i in range(0, len(words), max_words)]


def parse_paragraph_files(files, min_words: int = 25, max_words: int = 128) -> list[str]:
    """Plain-text files as passages: split on blank lines (or lines), long ones chunked (:func:`chunk_words`).

    Whitespace collapsed, in file order; paragraphs and chunks under ``min_words`` words are dropped.
    """
    out = []
    for f in files:
        text = read_text(Path(f))
        paras = re.split(r"\n\s*\n", text) if "\n\n" in text else lines(text)
        for p in paras:
            p = " ".join(p.split())
            if len(p.split()) >= min_words:
                out.extend(c for c in chunk_words(p, max_words) if len(c.split()) >= min_words)
    return out


# --- The papers' own formats ---------------------------------------------------------


def read_tsv_rows(path: Path, expect_header: bool = True):
    """``(header, rows)`` of a GLUE-style TSV (no quoting): header None without one, ``(line number, fields)`` per row.

    An empty file raises ValueError.
    """
    path = _need(Path(path), "a TSV file")
    all_lines = lines(read_text(path))
    if not all_lines:
        raise ValueError(f"{path} is empty.")
    header = all_lines[0].split("\t") if expect_header else None
    rows = []
    for lineno, line in enumerate(all_lines[1:] if expect_header else all_lines, 2 if expect_header else 1):
        if line.strip():
            rows.append((lineno, line.split("\t")))
    return header, rows


def _col(header, name, path):
    try:
        return header.index(name)
    except ValueError:
        raise ValueError(f"{Path(path).name}: no column {name!r}; the header has {header}.") from None


def parse_glue_tsv(path: Path, task: str):
    """``(texts_a, texts_b, labels)`` of a GLUE TSV: ``task`` ``"sst2"``, ``"qqp"`` or ``"stsb"``.

    Columns: SST-2 (sentence, label), QQP (question1, question2, is_duplicate), STS-B (sentence1, sentence2, score).
    ``texts_b`` is None for SST-2; labels int32 (STS-B: float32 scores). ValueError: an unknown task, a missing column,
    a row with another number of fields, or a label that is not a number.
    """
    header, rows = read_tsv_rows(path)
    spec = {
        "sst2": (("sentence",), "label"),
        "qqp": (("question1", "question2"), "is_duplicate"),
        "stsb": (("sentence1", "sentence2"), "score"),
    }
    if task not in spec:
        raise ValueError(f"Unknown GLUE task {task!r}: use one of {sorted(spec)}.")
    text_cols, label_col = spec[task]
    idx = [_col(header, c, path) for c in text_cols]
    lab = _col(header, label_col, path)
    a, b, y = [], [], []
    for lineno, row in rows:
        if len(row) != len(header):
            raise ValueError(
                f"{Path(path).name}, line {lineno}: expected {len(header)} tab-separated "
                f"fields ({header}), got {len(row)}. Is the file truncated or re-saved with quoting?"
            )
        try:
            y.append(float(row[lab]) if task == "stsb" else int(row[lab]))
        except ValueError:
            raise ValueError(f"{Path(path).name}, line {lineno}: label {row[lab]!r} is not a number.") from None
        a.append(row[idx[0]])
        if len(idx) > 1:
            b.append(row[idx[1]])
    return a, (b or None), np.asarray(y, dtype="float32" if task == "stsb" else "int32")


def parse_ptb_tree_line(line: str) -> tuple[str, int]:
    """SST's PTB tree line ``(3 (2 It) (4 (2 's) ...))`` as ``(sentence, root label 0-4)``.

    Leaves joined by spaces, ``-LRB-``/``-RRB-`` back to brackets; a line that is not an SST tree raises ValueError.

    Example:
        >>> parse_ptb_tree_line("(3 (2 It) (4 (2 works) (2 -RRB-)))")
        ('It works )', 3)
    """
    line = line.strip()
    m = re.match(r"\((\d)\s", line)
    if not m:
        raise ValueError(f"not an SST tree: {line[:60]!r}")
    words = re.findall(r"\(\d ([^()\s]+)\)", line)
    text = " ".join(words).replace("-LRB-", "(").replace("-RRB-", ")")
    return text, int(m.group(1))


def parse_sst_trees(path: Path):
    """An SST tree file (a PTB tree per line) as ``(texts, labels)``: root labels 0-4 (SST-5's classes), int32.

    A line that is not an SST tree raises ValueError with its line number.
    """
    path = _need(Path(path), "an SST tree file (train.txt/dev.txt/test.txt)")
    texts, labels = [], []
    for lineno, line in enumerate(lines(read_text(path)), 1):
        if not line.strip():
            continue
        try:
            t, y = parse_ptb_tree_line(line)
        except ValueError as exc:
            raise ValueError(f"{path.name}, line {lineno}: {exc}") from None
        texts.append(t)
        labels.append(y)
    return texts, np.asarray(labels, dtype="int32")


def parse_imdb_split(folder: Path):
    """One split of IMDB's reviews, ``aclImdb/<split>/{pos,neg}/*.txt``, as ``(texts, labels)``.

    ``<br />`` becomes a space; labels neg 0, pos 1, int32. No ``pos/`` or ``neg/``, or no reviews: an error.
    """
    folder = Path(folder)
    texts, labels = [], []
    for y, sub in enumerate(("neg", "pos")):
        d = _need(folder / sub, f"the IMDB folder {sub}/")
        for f in sorted(d.glob("*.txt")):
            texts.append(read_text(f).replace("<br />", " ").strip())
            labels.append(y)
    if not texts:
        raise ValueError(f"No reviews (*.txt) under {folder}/pos or {folder}/neg.")
    return texts, np.asarray(labels, dtype="int32")


def parse_conll(path: Path, tag_column: int = -1):
    """A CoNLL-2003 file (``token POS chunk NER`` per line) as ``(tokens, tags)`` per sentence.

    ``tag_column`` is 0-based (-1: the last, NER); see :func:`conll_sentences`.
    """
    path = _need(Path(path), "a CoNLL file")
    return conll_sentences(read_text(path), path.name, tag_column)


def conll_sentences(text: str, name: str = "the file", tag_column: int = -1) -> list[tuple[list, list]]:
    r"""``(tokens, tags)`` per sentence of CoNLL-form ``text`` (``name``: the file, as messages name it).

    A token per line, columns split by spaces or tabs, the token first, the tag in column ``tag_column`` (0-based, -1:
    the last); a blank line ends a sentence, ``-DOCSTART-`` lines are skipped. ValueError: a line with another number
    of columns than the first (or under 2), a ``tag_column`` that does not exist or is the token's, no sentences.

    Example:
        >>> conll_sentences("EU NNP B-ORG\nrejects VBZ O\n\n-DOCSTART- -X- O\n\nPeter NNP B-PER\r\n")
        [(['EU', 'rejects'], ['B-ORG', 'O']), (['Peter'], ['B-PER'])]
    """
    sents, tokens, tags, width = [], [], [], None
    for lineno, line in enumerate(lines(text), 1):
        line = line.strip()
        if not line or line.startswith("-DOCSTART-"):
            if tokens:
                sents.append((tokens, tags))
                tokens, tags = [], []
            continue
        cols = line.split()
        width = width or len(cols)
        if len(cols) != width or len(cols) < 2:
            raise ValueError(
                f"{name}, line {lineno}: expected {max(width, 2)} columns separated by spaces or tabs "
                f"(the token first, then e.g. POS, chunk, NER), got {len(cols)}: {line[:60]!r}. "
                "A token with a space in it, or a line without its tag, breaks the file's form."
            )
        if not -width <= tag_column < width or tag_column % width == 0:
            raise ValueError(
                f"{name}: tag column {tag_column} does not exist or is the token column; its lines have "
                f"{width} columns (0 = token ... {width - 1}, or -1 for the last)."
            )
        tokens.append(cols[0])
        tags.append(cols[tag_column])
    if tokens:
        sents.append((tokens, tags))
    if not sents:
        raise ValueError(f"{name} holds no sentences (a token per line, a blank line between sentences).")
    return sents


def parse_class_csv(path: Path, n_text_cols: int, n_classes: int):
    r"""AG News (class, title, description) / Yelp (class, text) / Yahoo! Answers: headerless CSV, classes 1..n.

    Returns ``(texts, labels)``: the ``n_text_cols`` text fields joined by spaces, escaped ``\n`` as spaces and ``\"``
    as quotes; labels 0..n_classes-1, int32. ValueError: a row of another width, a class not a number or outside 1..n,
    or no rows.
    """
    path = _need(Path(path), "a CSV file")
    texts, labels = [], []
    with open(path, newline="", encoding="utf-8") as f:
        for lineno, row in enumerate(csv.reader(f), 1):
            if not row:
                continue
            if len(row) != 1 + n_text_cols:
                raise ValueError(
                    f"{path.name}, line {lineno}: expected {1 + n_text_cols} fields (class, text...), got {len(row)}."
                )
            try:
                y = int(row[0])
            except ValueError:
                raise ValueError(
                    f"{path.name}, line {lineno}: class {row[0]!r} is not a number (these files have no header row)."
                ) from None
            if not 1 <= y <= n_classes:
                raise ValueError(f"{path.name}, line {lineno}: class {y} outside 1..{n_classes}.")
            text = " ".join(c.replace("\\n", " ").replace('\\"', '"') for c in row[1:]).strip()
            texts.append(text)
            labels.append(y - 1)
    if not texts:
        raise ValueError(f"{path} holds no rows.")
    return texts, np.asarray(labels, dtype="int32")


#: The review files of the Amazon review releases: 2014 ``reviews_<Category>_5.json.gz``, 2018
#: ``<Category>_5.json.gz`` (both McAuley's lab, fields ``overall``, ``reviewText``), 2023 ``<Category>.jsonl``
#: (Amazon Reviews'23, fields ``rating``, ``text``); plain or gzipped.
AMAZON_PATTERNS = ("*.json.gz", "*.json", "*.jsonl.gz", "*.jsonl")


def parse_amazon_reviews(path: Path) -> tuple[list[str], np.ndarray, int]:
    """One Amazon review file (JSON lines, plain or ``.gz``; the 2014 release's Python-literal lines too).

    A line: ``{"overall": 5.0, "reviewText": ...}`` (2014, 2018) or ``{"rating": 5.0, "text": ...}`` (2023). Returns
    ``(texts, stars, no_text)``: stars 1-5 as 0-4 (int32), and how many reviews had no text (dropped). ValueError: a
    rating outside 1-5 or a line that is not a review (with its line number), or no review with text.
    """
    path = _need(Path(path), "an Amazon review file (JSON lines)")
    opener = gzip.open if path.suffix == ".gz" else open
    texts, stars, no_text = [], [], 0
    with opener(path, "rt", encoding="utf-8", errors="strict") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            star, text = _amazon_review(path, lineno, line)
            if not text:
                no_text += 1
                continue
            texts.append(text)
            stars.append(star)
    if not texts:
        raise ValueError(f"{path} holds no reviews with text.")
    return texts, np.asarray(stars, dtype="int32"), no_text


def _amazon_review(path: Path, lineno: int, line: str) -> tuple[int, str]:
    """One review line → ``(stars 1-5 as 0-4, text)``, the text cleaned of control characters and stripped."""
    try:
        review = json.loads(line)
    except json.JSONDecodeError:
        try:
            review = ast.literal_eval(line)  # the 2014 release wrote some files as Python dicts
        except (ValueError, SyntaxError):
            raise ValueError(
                f"{path.name}, line {lineno}: not a JSON review ({line[:60]!r}...). An Amazon "
                "review file holds one JSON object per line."
            ) from None
    if not isinstance(review, dict):
        raise ValueError(f"{path.name}, line {lineno}: expected a JSON object, got {type(review).__name__}.")
    rating = review.get("overall", review.get("rating"))
    if rating is None:
        raise ValueError(
            f"{path.name}, line {lineno}: no rating ('overall' in the 2014/2018 releases, "
            f"'rating' in 2023); its fields are {sorted(review)[:8]}."
        )
    try:
        star = float(rating)
    except (TypeError, ValueError):
        raise ValueError(f"{path.name}, line {lineno}: rating {rating!r} is not a number.") from None
    if star not in (1.0, 2.0, 3.0, 4.0, 5.0):
        raise ValueError(f"{path.name}, line {lineno}: rating {rating!r} is not a whole star 1-5.")
    text = review.get("reviewText", review.get("text")) or ""
    return int(star) - 1, clean_control_chars(str(text)).strip()


def clean_control_chars(text: str) -> str:
    r"""Drop Unicode category-C characters (control, format, ...), keeping tab, newline and CR as spaces.

    Example:
        >>> clean_control_chars("a\tb\x00c\u200bd")
        'a bcd'
    """
    return "".join(
        " " if ch in "\t\n\r" else ch for ch in text if ch in "\t\n\r" or not unicodedata.category(ch).startswith("C")
    )


__all__ = [n for n in dir() if n.startswith("parse_")] + [
    "vader_targets",
    "wiki_to_text",
    "chunk_words",
    "AMAZON_PATTERNS",
]
