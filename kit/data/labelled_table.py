"""What every format of labelled rows (CSV, JSON Lines, Parquet, a Hugging Face dataset) shares: the later steps.

A reader checks the columns (:class:`Columns`), then adds each row to a :class:`Table` of strings, as a CSV reader
sees them (``1`` → ``"1"``, ``true`` → ``"true"``); checks, messages, task, labels, split (:class:`Splits`) and the
:class:`TextDataset` are then the same for every format. Messages say ``line N`` (CSV, JSON Lines) or ``row N``.

>>> table = Table(Request(Columns(text="review", label="stars")), "mine.jsonl")
>>> read_records(table, [(i + 1, {"review": f"text {i}", "stars": i % 2 == 0}) for i in range(10)])
>>> ds = labelled_dataset(table, name="mine", verbose=False)
>>> ds.label_names, ds.sizes(), ds.info["task_reason"]
(['false', 'true'], {'train': 8, 'dev': 1, 'test': 1}, 'the labels are names')
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from .dataset import Split, TextDataset
from .splits import split_given, split_indices

#: Label values read as missing (compared case-insensitively); name them in ``label_names`` to keep one as a class.
MISSING_LABELS = ("", "nan", "na", "n/a", "null", "none")
#: All-integer labels with at most this many distinct values are classes; more are a regression target.
MAX_INTEGER_CLASSES = 20
#: Rows a class needs at least (one each for train, dev and test).
MIN_CLASS_ROWS = 3
#: The splits a data set has, in order.
SPLIT_NAMES = ("train", "dev", "test")

# --- what the caller asks for ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Columns:
    """The columns of labelled rows to read: a text (or a pair's ``text_a`` and ``text_b``) and a label.

    ``label_names``: the classes in their order (default: a ``ClassLabel``'s names, else the labels sorted).

    Example:
        >>> Columns(text_a="q1", text_b="q2", label="dup").texts
        ['q1', 'q2']
    """

    text: str | None = None
    label: str | None = None
    text_a: str | None = None
    text_b: str | None = None
    label_names: list[str] | None = None

    @property
    def pair(self) -> bool:
        """Sentence pairs (``text_a`` or ``text_b`` given) rather than single texts."""
        return self.text_a is not None or self.text_b is not None

    @property
    def texts(self) -> list[str]:
        """The text column, or a pair's two."""
        return [self.text_a, self.text_b] if self.pair else [self.text]

    @property
    def given(self) -> list[str]:
        """The names of the fields set, e.g. ``["text", "label"]``."""
        return [k for k, v in vars(self).items() if v is not None]


@dataclass(frozen=True)
class Splits:
    """How rows are split into train, dev, test: seeded (stratified for classes), or by a ``column`` of train/dev/test.

    ``dev``, ``test``: fractions. A folder or ``DatasetDict`` keeps its own splits, cutting missing ones from train.

    Example:
        >>> Splits(dev=0.2, seed=1)
        Splits(column=None, dev=0.2, test=0.1, seed=1)
    """

    column: str | None = None
    dev: float = 0.1
    test: float = 0.1
    seed: int = 0


@dataclass(frozen=True)
class Request:
    """What :func:`kit.data.read` was asked for, for labelled rows; checked when made (:func:`check_request`).

    ``task`` None infers it; ``skip_empty`` drops the rows with an empty text instead of stopping.
    """

    columns: Columns
    splits: Splits = Splits()
    task: str | None = None
    skip_empty: bool = False

    def __post_init__(self):
        check_request(self)

    @property
    def wanted(self) -> list[str]:
        """Every named column: the texts, the label, then the split column if any."""
        split = self.splits.column
        return self.columns.texts + [self.columns.label] + ([split] if split else [])


def check_request(request: Request) -> None:
    """Check the columns and the task asked for, before the file is read.

    ValueError: a pair's column missing, single texts and pairs mixed, no text or label column, a column named twice,
    or a task that does not fit single texts or pairs.

    Example:
        >>> Request(Columns(text="t", label="t"))
        Traceback (most recent call last):
        ...
        ValueError: Column 't' is named twice (text, label and split must be different columns): you gave
        {'text': 't'}, label='t'.
    """
    columns, task, split = request.columns, request.task, request.splits.column
    pair = columns.pair
    if pair and (columns.text_a is None or columns.text_b is None):
        raise ValueError("For sentence pairs give both text_a=... and text_b=... column names.")
    if pair and columns.text is not None:
        raise ValueError("Give either text=... (single texts) or text_a=... and text_b=... (pairs), not both.")
    if not pair and columns.text is None:
        raise ValueError("Name the text column: read(path, Columns(text='column', label='column')).")
    if columns.label is None:
        raise ValueError("Name the label column: Columns(label='column').")
    wanted = request.wanted
    if len(set(wanted)) != len(wanted):
        dup = next(c for i, c in enumerate(wanted) if c in wanted[:i])
        raise ValueError(
            f"Column {dup!r} is named twice (text, label and split must be different columns): "
            f"you gave {dict(zip(['text_a', 'text_b'] if pair else ['text'], columns.texts))}, "
            f"label={columns.label!r}" + (f", split column {split!r}" if split else "") + "."
        )
    allowed = ("pairs", "pair_regression") if pair else ("classification", "regression")
    if task is not None and task not in allowed:
        raise ValueError(f"task={task!r} does not fit {'pairs' if pair else 'single texts'}: use one of {allowed}.")


def check_columns(source: str, found: list[str], wanted: list[str], hint: str = "", kind: str = "columns") -> None:
    """Check that every column named (``wanted``) is among those ``found`` in ``source``, else KeyError listing them.

    ``hint``: a sentence added to the message (leading space included); ``kind``: what the file calls columns ("keys").

    Example:
        >>> check_columns("mine.csv", ["review", "stars"], ["text", "stars"])
        Traceback (most recent call last):
        ...
        KeyError: "mine.csv has no column 'text'. Its columns are ['review', 'stars']."
    """
    for col in wanted:
        if col not in found:
            raise KeyError(f"{source} has no column {col!r}. Its {kind} are {list(found)}.{hint}")


# --- the rows --------------------------------------------------------------------------------------------------------


@dataclass
class Table:
    """The rows a reader kept, column by column, as strings, and how the file was read.

    ``source``: the file's name, as messages start; ``word``: a row's place in them, ``"line"`` (text file) or ``"row"``
    (table); ``info``: how it was read (encoding ...), kept in the data set's ``info``; ``no_rows``: the message when no
    rows are left; ``description``: default ``"your data: <file>"``; ``values``: each named column's fields per kept row
    (texts as written, others stripped); ``lines``: where each row is (a number, or ``"3 of split 'train'"``);
    ``given``: each row's split in its container (a ``DatasetDict``'s), or None; ``class_names``: a ``ClassLabel``'s.
    """

    request: Request
    source: str
    word: str = "line"
    info: dict = field(default_factory=dict)
    no_rows: str = "has no rows"
    description: str | None = None
    values: dict[str, list[str]] = field(init=False)
    lines: list = field(init=False, default_factory=list)
    empty_text: list = field(init=False, default_factory=list)
    given: list | None = field(init=False, default=None)
    class_names: list[str] | None = field(init=False, default=None)

    def __post_init__(self):
        self.values = {c: [] for c in self.request.wanted}
        self._keep = {str(v).strip().lower() for v in (self.request.columns.label_names or [])}

    def __len__(self) -> int:
        return len(self.values[self.columns.label])

    @property
    def columns(self) -> Columns:
        """The columns asked for."""
        return self.request.columns

    @property
    def labels(self) -> list[str]:
        """The label column's fields, stripped."""
        return self.values[self.columns.label]

    def at(self, line) -> str:
        """Where a row is, as a message starts: ``"mine.csv, line 7"``."""
        return f"{self.source}, {self.word} {line}"

    def add(self, line, cells: dict[str, str]) -> None:
        """Add a row's fields (a string per named column); a missing label not in ``label_names`` raises ValueError."""
        columns = self.columns
        value = cells[columns.label].strip()
        if value.lower() in MISSING_LABELS and value.lower() not in self._keep:
            self.missing_label(
                line, repr(value), f"; to keep {value!r} as a class, list it in label_names." if value else "."
            )
        if any(not cells[c].strip() for c in columns.texts):
            self.empty_text.append(line)
            if self.request.skip_empty:
                return
        for c in self.request.wanted:
            cell = cells[c]
            self.values[c].append(value if c == columns.label else cell if c in columns.texts else cell.strip())
        self.lines.append(line)

    def missing_label(self, line, shown: str, end: str = ".") -> None:
        """Raise ValueError for a row with a missing label: the row, the column, the value (``shown``), then ``end``."""
        raise ValueError(
            f"{self.at(line)}: the label in column {self.columns.label!r} is missing ({shown}). "
            f"Fill it in or drop the row{end}"
        )


def read_records(table: Table, records) -> None:
    """Add ``(line, {column: value})`` rows (JSON objects, table rows) to ``table``, values as a CSV would hold them.

    ValueError: a row lacks a named column, its label is missing or not one value, or a text is not a string.

    Example:
        >>> table = Table(Request(Columns(text="t", label="l")), "mine.jsonl")
        >>> read_records(table, [(1, {"t": "good", "l": 1}), (2, {"t": "bad", "l": 0.5})])
        >>> table.labels
        ['1', '0.5']
        >>> read_records(table, [(3, {"t": ["a", "list"], "l": 1})])
        Traceback (most recent call last):
        ...
        ValueError: mine.jsonl, line 3: the text in column 't' is a list (['a', 'list']), not a string. ...
    """
    wanted = table.request.wanted
    for line, record in records:
        absent = [c for c in wanted if c not in record]
        if absent:
            raise ValueError(
                f"{table.at(line)}: no {absent[0]!r} here (its fields are {list(record)}); every row needs the "
                f"fields {wanted}."
            )
        table.add(line, {c: _cell(table, line, c, record[c]) for c in wanted})


def _kind(value) -> str:
    """What a value is, in words: ``"a list"``, ``"a number"`` ..."""
    kinds = {dict: "an object", list: "a list", tuple: "a list", bytes: "bytes", bool: "a boolean"}
    kind = next((k for t, k in kinds.items() if isinstance(value, t)), None)
    return kind or ("a number" if isinstance(value, numbers.Number) else f"a {type(value).__name__}")


def _short(value) -> str:
    """A value's repr, cut to 60 characters."""
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _cell(table: Table, line, column: str, value) -> str:
    """One field as the string a CSV would hold: a label's number or boolean spelled as JSON does, a text as is."""
    columns = table.columns
    if isinstance(value, str):
        return value
    if column in columns.texts:
        if value is None and table.request.skip_empty:
            return ""
        if value is None:
            raise ValueError(
                f"{table.at(line)}: the text in column {column!r} is null. Fill it in, or pass skip_empty=True "
                "(kit run: --skip-empty) to drop the rows with an empty or null text."
            )
        raise ValueError(
            f"{table.at(line)}: the text in column {column!r} is {_kind(value)} ({_short(value)}), not a string. "
            f"Is {column!r} the text column?"
        )
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, numbers.Number) and not isinstance(value, complex):
        return str(value)
    if value is None and column == columns.label:
        table.missing_label(line, "null")
    if value is None:
        return ""
    raise ValueError(
        f"{table.at(line)}: the {'label' if column == columns.label else 'split'} in column {column!r} is "
        f"{_kind(value)} ({_short(value)}), not one value: the kit reads one string, number or true/false per row."
    )


def check_rows(table: Table) -> None:
    """Check that no text is empty (unless skipped) and that rows are left, else ValueError.

    Example:
        >>> check_rows(Table(Request(Columns(text="t", label="l")), "mine.jsonl"))
        Traceback (most recent call last):
        ...
        ValueError: mine.jsonl has no rows.
    """
    if table.empty_text and not table.request.skip_empty:
        raise ValueError(
            f"{table.source}: {len(table.empty_text)} row(s) have an empty text (first at {table.word} "
            f"{table.empty_text[0]}). Fill them in, or pass skip_empty=True (kit run: --skip-empty) to drop them."
        )
    if len(table) == 0:
        raise ValueError(
            f"{table.source} {table.no_rows}"
            + (f" (all {len(table.empty_text)} had an empty text)." if table.empty_text else ".")
        )


# --- the task and its labels -----------------------------------------------------------------------------------------


class Labels(NamedTuple):
    """The task chosen and the labels encoded for it.

    ``reason``: why that task (``info["task_reason"]``); ``values``: class ids (int32) or numbers (float32); ``names``:
    the classes, None for regression.
    """

    task: str
    reason: str
    values: np.ndarray
    names: list[str] | None


def task_and_labels(table: Table) -> Labels:
    """The task (asked for, or inferred from the labels) and the labels encoded for it.

    Classes: ``label_names`` if given, else the label's own names (a ``ClassLabel``'s), else the labels sorted.
    ValueError: a regression label not a number, one class only, or a label not among the class names.
    """
    raw_labels, lines, label = table.labels, table.lines, table.columns.label
    label_names, reason = table.columns.label_names, "label_names given"
    if label_names is None and table.class_names is not None:
        label_names, reason = table.class_names, "the label is a ClassLabel: its names"
    task = table.request.task
    chosen, reason = (
        (task, "as you asked") if task is not None else _infer_task(raw_labels, label_names, table.columns.pair, reason)
    )
    if chosen in ("regression", "pair_regression"):
        bad = next((i for i, v in enumerate(raw_labels) if not _is_number(v)), None)
        if bad is not None:
            raise ValueError(
                f"{table.at(lines[bad])}: label {raw_labels[bad]!r} is not a number (task={chosen!r} needs numbers)."
            )
        return Labels(chosen, reason, np.asarray([float(v) for v in raw_labels], dtype="float32"), None)
    names = list(label_names) if label_names is not None else sorted(set(raw_labels), key=_natural)
    if len(names) < 2:
        raise ValueError(
            f"{table.source}: column {label!r} holds one class only ({names}); a classifier needs "
            "at least two. Is it the right column?"
        )
    lookup = {v: i for i, v in enumerate(names)}
    for i, v in enumerate(raw_labels):
        if v not in lookup:
            raise ValueError(
                f"{table.at(lines[i])}: unknown label {v!r}; label_names are {names}. "
                "Add it to label_names or fix the row."
            )
    return Labels(chosen, reason, np.asarray([lookup[v] for v in raw_labels], dtype="int32"), names)


def _is_number(v: str) -> bool:
    """Whether a label reads as a number."""
    try:
        float(v)
        return True
    except ValueError:
        return False


def _natural(v: str):
    """A sort key: numbers by value first, then names."""
    return (0, float(v), v) if _is_number(v) else (1, 0.0, v)


def _infer_task(values, label_names, pair, names_reason) -> tuple[str, str]:
    """The task the labels show, and why: names are classes, fractions or many integers a regression target."""
    classes, regression = ("pairs", "pair_regression") if pair else ("classification", "regression")
    if label_names is not None:
        return classes, names_reason
    if not all(_is_number(v) for v in values):
        return classes, "the labels are names"
    numbers_ = np.asarray([float(v) for v in values])
    distinct = len(np.unique(numbers_))
    if (numbers_ != np.round(numbers_)).any():
        return regression, f"the labels are numbers with fractions; pass task={classes!r} to treat them as classes"
    if distinct > MAX_INTEGER_CLASSES:
        return regression, (
            f"{distinct} distinct integers, more than {MAX_INTEGER_CLASSES}; pass task={classes!r} "
            "to treat them as classes"
        )
    return classes, (
        f"{distinct} distinct integers, read as classes; pass task={regression!r} to predict the number instead"
    )


# --- the split and the data set --------------------------------------------------------------------------------------


def split_rows(table: Table, labels: Labels) -> dict:
    """Train/dev/test row indices: from the split column, the splits given, or seeded (stratified for classes).

    ValueError: the split column holds other values, or a class has too few rows for the seeded split.
    """
    splits = table.request.splits
    if splits.column:
        tags = [t.lower() for t in table.values[splits.column]]
        bad = sorted(set(tags) - set(SPLIT_NAMES))
        if bad:
            raise ValueError(f"{table.source}: column {splits.column!r} may hold only train/dev/test, found {bad}.")
        return {k: np.flatnonzero(np.asarray(tags) == k) for k in SPLIT_NAMES}
    stratify = labels.values if labels.task in ("classification", "pairs") else None
    if table.given is not None:
        return split_given(table.given, dev=splits.dev, test=splits.test, seed=splits.seed, stratify=stratify)
    parts = split_indices(len(table), dev=splits.dev, test=splits.test, seed=splits.seed, stratify=stratify)
    if labels.names is not None:
        _check_class_sizes(table, labels)
    return parts


def _check_class_sizes(table: Table, labels: Labels) -> None:
    """Check that every class present has :data:`MIN_CLASS_ROWS` rows, one for each of train, dev and test."""
    names = labels.names
    counts = np.bincount(labels.values, minlength=len(names))
    few = [
        f"{names[i]!r} ({counts[i]}, {table.word} {table.lines[table.labels.index(names[i])]})"
        for i in np.flatnonzero(counts < MIN_CLASS_ROWS)
        if counts[i]
    ]
    if few:
        raise ValueError(
            f"{table.source}: class {', '.join(few)} has fewer than {MIN_CLASS_ROWS} rows; every "
            "class needs one in each of train, dev and test. Add rows, merge it into another "
            "class, or drop its rows."
        )


def labelled_dataset(table: Table, *, name: str, source: str = "", verbose: bool = True) -> TextDataset:
    """Choose the task, encode the labels, split the rows and build the :class:`TextDataset`, as every format does.

    ``table`` is checked by :func:`check_rows`; ``source`` (the file's path) is kept; ``verbose`` prints the rows, the
    task and why, and the split sizes.

    Example:
        >>> table = Table(Request(Columns(text="t", label="l")), "mine.csv")
        >>> read_records(table, [(i + 2, {"t": f"text {i}", "l": i % 3}) for i in range(30)])
        >>> ds = labelled_dataset(table, name="mine")
        mine.csv: 30 rows, task 'classification' (3 distinct integers, read as classes; pass task='regression' to
        predict the number instead); train 24, dev 3, test 3
        >>> ds.label_names, sorted(ds.info)
        (['0', '1', '2'], ['skipped_empty', 'task_reason'])
    """
    labels = task_and_labels(table)
    parts = split_rows(table, labels)
    columns = table.columns
    texts_b = table.values[columns.texts[1]] if columns.pair else None
    pool = Split(table.values[columns.texts[0]], labels.values, texts_b)
    skipped = len(table.empty_text) if table.request.skip_empty else 0
    ds = TextDataset(
        name,
        labels.task,
        {k: pool.take(v) for k, v in parts.items()},
        labels.names,
        source=source,
        description=table.description or f"your data: {table.source}",
        info={"task_reason": labels.reason, **table.info, "skipped_empty": skipped},
    )
    if verbose:
        sizes = ", ".join(f"{k} {v:,}" for k, v in ds.sizes().items())
        print(f"{table.source}: {len(table):,} rows, task {labels.task!r} ({labels.reason}); " + sizes)
    return ds
