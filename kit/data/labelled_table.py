"""What every reader of your labelled rows shares, whatever the file's format: the steps after the file is read.

A reader (CSV, JSON Lines, Parquet, a Hugging Face dataset) checks the columns it was asked for, then adds each
row to a :class:`Table` of strings, column by column, as a CSV reader sees them (a label ``1`` becomes ``"1"``,
``0.5`` becomes ``"0.5"``, ``true`` becomes ``"true"``). From there the checks and the messages are the same for
every format: a missing label, an empty text, the task and its labels (one class only, an unknown label), the split
(a class with fewer than 3 rows) and the :class:`TextDataset`. Messages name the row where it is: ``line N`` in a text
file (CSV, JSON Lines), ``row N`` in a table (Parquet, a Hugging Face dataset).

>>> columns = named_columns("review", "stars", text_a=None, text_b=None, split=None, task=None)
>>> table = Table(columns, "mine.jsonl")
>>> read_records(table, [(i + 1, {"review": f"text {i}", "stars": i % 2 == 0}) for i in range(10)])
>>> ds = labelled_dataset(table, task=None, label_names=None, name="mine", verbose=False)
>>> ds.label_names, ds.sizes(), ds.info["task_reason"]
(['false', 'true'], {'train': 8, 'dev': 1, 'test': 1}, 'the labels are names')
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .dataset import Split, TextDataset
from .file_formats import describe_format
from .splits import split_indices

#: Label values read as missing (compared case-insensitively); name them in ``label_names`` to keep one as a class.
MISSING_LABELS = ("", "nan", "na", "n/a", "null", "none")
#: All-integer labels with at most this many distinct values are classes; more are a regression target.
MAX_INTEGER_CLASSES = 20
#: Rows a class needs at least (one each for train, dev and test).
MIN_CLASS_ROWS = 3
#: The splits a data set has, in order.
SPLIT_NAMES = ("train", "dev", "test")

# --- the arguments ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Columns:
    """The columns a reader reads, as the caller named them.

    Attributes:
        texts: the text column, or a pair's two (``text_a``, ``text_b``).
        label: the label column.
        split: the column holding ``train``/``dev``/``test``, or None for the seeded split.
    """

    texts: list[str]
    label: str
    split: str | None

    @property
    def pair(self) -> bool:
        """Sentence pairs (``text_a`` and ``text_b``) rather than single texts."""
        return len(self.texts) == 2

    @property
    def wanted(self) -> list[str]:
        """Every named column: the texts, the label, then the split column if any."""
        return self.texts + [self.label] + ([self.split] if self.split else [])


def existing_file(path, reads: str = "from_csv reads one CSV or TSV file") -> Path:
    """``path`` as a :class:`~pathlib.Path` (``~`` expanded), checked to be a file.

    Args:
        path: the file.
        reads: what the reader reads, said when ``path`` is a folder.

    Returns:
        The path.

    Raises:
        FileNotFoundError: there is no such file.
        IsADirectoryError: it is a folder (a saved Hugging Face dataset's is named as one).

    Example:
        >>> existing_file("no/such.csv")
        Traceback (most recent call last):
        ...
        FileNotFoundError: No such file: no/such.csv. Check the path (relative paths start at ...).
    """
    path = Path(path).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"No such file: {path}. Check the path (relative paths start at {Path.cwd()}).")
    if path.is_dir():
        hint = ""
        if describe_format(path):
            hint = (
                " It is a saved Hugging Face dataset (save_to_disk's folder): read it with "
                "kit.data.from_hf_disk (kit run: --data FOLDER)."
            )
        raise IsADirectoryError(f"{path} is a folder; {reads}.{hint}")
    return path


def named_columns(text, label, *, text_a, text_b, split, task, reader: str = "from_csv") -> Columns:
    """The columns a reader was asked for, checked before the file is read.

    Args:
        text: the text column (single texts), or None.
        label: the label column.
        text_a: the first text column of a pair, or None.
        text_b: the second text column of a pair, or None.
        split: the split column, or None.
        task: the task asked for, or None.
        reader: the reader's name, as the messages show its call.

    Returns:
        The columns.

    Raises:
        ValueError: a pair's column is missing, single texts and pairs are mixed, the text or label column is not
            named, a column is named twice, or ``task`` does not fit single texts or pairs.

    Example:
        >>> named_columns(None, "l", text_a="q1", text_b="q2", split=None, task=None).wanted
        ['q1', 'q2', 'l']
    """
    pair = text_a is not None or text_b is not None
    if pair and (text_a is None or text_b is None):
        raise ValueError("For sentence pairs give both text_a=... and text_b=... column names.")
    if pair and text is not None:
        raise ValueError("Give either text=... (single texts) or text_a=... and text_b=... (pairs), not both.")
    if not pair and text is None:
        raise ValueError(f"Name the text column: {reader}(path, text='column', label='column').")
    if label is None:
        raise ValueError("Name the label column: label='column'.")
    columns = Columns([text_a, text_b] if pair else [text], label, split)
    wanted = columns.wanted
    if len(set(wanted)) != len(wanted):
        dup = next(c for i, c in enumerate(wanted) if c in wanted[:i])
        raise ValueError(
            f"Column {dup!r} is named twice (text, label and split must be different columns): "
            f"you gave {dict(zip(['text_a', 'text_b'] if pair else ['text'], columns.texts))}, "
            f"label={label!r}" + (f", split={split!r}" if split else "") + "."
        )
    if task is not None:
        allowed = ("pairs", "pair_regression") if pair else ("classification", "regression")
        if task not in allowed:
            raise ValueError(f"task={task!r} does not fit {'pairs' if pair else 'single texts'}: use one of {allowed}.")
    return columns


def check_columns(source: str, found: list[str], wanted: list[str], hint: str = "", kind: str = "columns") -> None:
    """Check that every column the caller named is among those ``found``.

    Args:
        source: the file's name, as the message starts.
        found: the columns the file has.
        wanted: the columns the caller named.
        hint: a sentence added to the message (with its leading space), or ``""``.
        kind: what the file calls its columns, e.g. ``"keys"`` for JSON objects.

    Raises:
        KeyError: a named column is not there; the message lists the ones there are.

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

    Attributes:
        columns: the columns the caller named.
        source: the file's name, as messages start (``mine.csv``).
        word: what the messages call a row's place: ``"line"`` (a text file) or ``"row"`` (a table).
        info: how the file was read (its encoding, its delimiter ...), kept in the data set's ``info``.
        no_rows: what the message says when no rows are left, after the file's name.
        values: each named column's fields, one per kept row (texts as written, the others stripped).
        lines: where each kept row is (a line or row number, or e.g. ``"3 of split 'train'"``), for the messages.
        empty_text: where the rows with an empty text are.
        skipped: how many of those were dropped (``skip_empty=True``).
    """

    columns: Columns
    source: str
    word: str = "line"
    info: dict = field(default_factory=dict)
    no_rows: str = "has no rows"
    values: dict[str, list[str]] = field(default_factory=dict)
    lines: list = field(default_factory=list)
    empty_text: list = field(default_factory=list)
    skipped: int = 0

    def __post_init__(self):
        for c in self.columns.wanted:
            self.values.setdefault(c, [])

    def __len__(self) -> int:
        return len(self.values[self.columns.label])

    @property
    def labels(self) -> list[str]:
        """The label column's fields, stripped."""
        return self.values[self.columns.label]

    def at(self, line) -> str:
        """Where a row is, as a message starts: ``"mine.csv, line 7"``.

        Args:
            line: the row's line or row number (or place, e.g. ``"3 of split 'train'"``).

        Returns:
            The file's name, the word and the place.
        """
        return f"{self.source}, {self.word} {line}"

    def add(self, line, cells: dict[str, str], *, keep_names: set[str], skip_empty: bool) -> None:
        """Add one row's fields, checking its label and its texts.

        Args:
            line: where the row is.
            cells: every named column's field, as a string.
            keep_names: the missing-label values (lower case) the caller keeps as classes (:func:`kept_names`).
            skip_empty: drop the row if a text is empty (it is counted in ``empty_text`` either way).

        Raises:
            ValueError: the label is missing.
        """
        columns = self.columns
        value = cells[columns.label].strip()
        if value.lower() in MISSING_LABELS and value.lower() not in keep_names:
            self.missing_label(
                line, repr(value), f"; to keep {value!r} as a class, list it in label_names." if value else "."
            )
        if any(not cells[c].strip() for c in columns.texts):
            self.empty_text.append(line)
            if skip_empty:
                return
        for c in columns.wanted:
            cell = cells[c]
            self.values[c].append(value if c == columns.label else cell if c in columns.texts else cell.strip())
        self.lines.append(line)

    def missing_label(self, line, shown: str, end: str = ".") -> None:
        """Stop at a row whose label is missing.

        Args:
            line: where the row is.
            shown: the missing value as the message shows it (``"''"``, ``"null"``).
            end: the end of the message (a way to keep it, or ``"."``).

        Raises:
            ValueError: always, naming the row, the column and the value.
        """
        raise ValueError(
            f"{self.at(line)}: the label in column {self.columns.label!r} is missing ({shown}). "
            f"Fill it in or drop the row{end}"
        )


def kept_names(label_names) -> set[str]:
    """The class names the caller listed, lower case: a missing-label value among them is a class.

    Args:
        label_names: the classes the caller named, or None.

    Returns:
        Their stripped, lower-case forms.

    Example:
        >>> sorted(kept_names(["None", "pos"]))
        ['none', 'pos']
    """
    return {str(v).strip().lower() for v in (label_names or [])}


def read_records(table: Table, records, *, label_names=None, skip_empty: bool = False) -> None:
    """Add rows of values (a JSON object, a table's row) to ``table``, each field made the string a CSV would hold.

    Args:
        table: the table to add to.
        records: ``(line, {column: value})`` pairs; the values are strings, numbers, booleans or None.
        label_names: the classes the caller named (a missing-label value among them is a class).
        skip_empty: drop the rows with an empty or null text instead of stopping.

    Raises:
        ValueError: a row lacks a named column, its label is missing or not one value, or a text is not a string.

    Example:
        >>> table = Table(Columns(["t"], "l", None), "mine.jsonl")
        >>> read_records(table, [(1, {"t": "good", "l": 1}), (2, {"t": "bad", "l": 0.5})])
        >>> table.labels
        ['1', '0.5']
        >>> read_records(table, [(3, {"t": ["a", "list"], "l": 1})])
        Traceback (most recent call last):
        ...
        ValueError: mine.jsonl, line 3: the text in column 't' is a list (['a', 'list']), not a string. ...
    """
    keep = kept_names(label_names)
    wanted = table.columns.wanted
    for line, record in records:
        absent = [c for c in wanted if c not in record]
        if absent:
            raise ValueError(
                f"{table.at(line)}: no {absent[0]!r} here (its fields are {list(record)}); every row needs the "
                f"fields {wanted}."
            )
        cells = {c: _cell(table, line, c, record[c], skip_empty) for c in wanted}
        table.add(line, cells, keep_names=keep, skip_empty=skip_empty)


def _kind(value) -> str:
    kinds = {dict: "an object", list: "a list", tuple: "a list", bytes: "bytes", bool: "a boolean"}
    kind = next((k for t, k in kinds.items() if isinstance(value, t)), None)
    return kind or ("a number" if isinstance(value, numbers.Number) else f"a {type(value).__name__}")


def _short(value) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _cell(table: Table, line, column: str, value, skip_empty: bool) -> str:
    """One field as the string a CSV would hold: a label's number or boolean spelled as JSON does, a text as is.

    Raises:
        ValueError: the label is null or not one value, or a text is null (without ``skip_empty``) or not a string.
    """
    columns = table.columns
    if isinstance(value, str):
        return value
    if column in columns.texts:
        if value is None and skip_empty:
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


def check_rows(table: Table, skip_empty: bool) -> None:
    """Check that no text is empty (unless they are skipped) and that rows are left; count the rows skipped.

    Args:
        table: the rows read.
        skip_empty: the rows with an empty text were dropped.

    Raises:
        ValueError: rows have an empty text and ``skip_empty`` is off, or no rows are left.

    Example:
        >>> check_rows(Table(Columns(["t"], "l", None), "mine.jsonl"), skip_empty=False)
        Traceback (most recent call last):
        ...
        ValueError: mine.jsonl has no rows.
    """
    if table.empty_text and not skip_empty:
        raise ValueError(
            f"{table.source}: {len(table.empty_text)} row(s) have an empty text (first at {table.word} "
            f"{table.empty_text[0]}). Fill them in, or pass skip_empty=True (kit run: --skip-empty) to drop them."
        )
    if len(table) == 0:
        raise ValueError(
            f"{table.source} {table.no_rows}"
            + (f" (all {len(table.empty_text)} had an empty text)." if table.empty_text else ".")
        )
    table.skipped = len(table.empty_text) if skip_empty else 0


# --- the task and its labels -----------------------------------------------------------------------------------------


class Labels(NamedTuple):
    """The task chosen and the labels encoded for it.

    Attributes:
        task: the task (``"classification"``, ``"regression"``, ``"pairs"`` or ``"pair_regression"``).
        reason: why that task, as printed and kept in ``info["task_reason"]``.
        values: the class ids (int32), or the numbers to predict (float32).
        names: the class names, or None for regression.
    """

    task: str
    reason: str
    values: np.ndarray
    names: list[str] | None


def task_and_labels(table: Table, task: str | None, label_names, names_reason: str = "label_names given") -> Labels:
    """Choose the task (the one asked for, or inferred from the labels) and encode the labels for it.

    Args:
        table: the rows read.
        task: the task asked for, or None to infer it.
        label_names: the classes in their order, or None for the labels sorted.
        names_reason: why the task is classes when ``label_names`` is given.

    Returns:
        The task, its reason and the encoded labels.

    Raises:
        ValueError: a regression label is not a number, the labels hold one class only, or a label is not in
            ``label_names``.
    """
    raw_labels, lines, label = table.labels, table.lines, table.columns.label
    chosen, reason = (
        (task, "as you asked")
        if task is not None
        else _infer_task(raw_labels, label_names, table.columns.pair, names_reason)
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
    try:
        float(v)
        return True
    except ValueError:
        return False


def _natural(v: str):
    return (0, float(v), v) if _is_number(v) else (1, 0.0, v)


def _infer_task(values, label_names, pair, names_reason) -> tuple[str, str]:
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


def split_rows(table: Table, labels: Labels, *, dev: float, test: float, seed: int, given=None) -> dict:
    """Train/dev/test row indices: from the split column, the splits given, or seeded (stratified for classes).

    Args:
        table: the rows read.
        labels: the task and its encoded labels.
        dev: the fraction of rows in dev (seeded split; of train's rows when ``given`` lacks dev).
        test: the fraction of rows in test (likewise).
        seed: the seed of the split.
        given: each row's split (``"train"``, ``"dev"`` or ``"test"``) as the container kept them (a
            ``DatasetDict``'s), or None; a split it lacks is cut from train, seeded.

    Returns:
        ``{"train": ..., "dev": ..., "test": ...}``, arrays of row positions.

    Raises:
        ValueError: the split column holds other values, or a class has too few rows for the seeded split.
    """
    split = table.columns.split
    if split:
        tags = [t.lower() for t in table.values[split]]
        bad = sorted(set(tags) - set(SPLIT_NAMES))
        if bad:
            raise ValueError(f"{table.source}: column {split!r} may hold only train/dev/test, found {bad}.")
        return {k: np.flatnonzero(np.asarray(tags) == k) for k in SPLIT_NAMES}
    stratify = labels.values if labels.task in ("classification", "pairs") else None
    if given is not None:
        return _cut_from_train(np.asarray(given), stratify, dev=dev, test=test, seed=seed)
    parts = split_indices(len(table), dev=dev, test=test, seed=seed, stratify=stratify)
    if labels.names is not None:
        _check_class_sizes(table, labels)
    return parts


def _cut_from_train(given: np.ndarray, stratify, *, dev: float, test: float, seed: int) -> dict:
    """The splits given, with the ones they lack cut from train (seeded, stratified when ``stratify`` is given)."""
    parts = {k: np.flatnonzero(given == k) for k in SPLIT_NAMES}
    cut = {k: (dev if k == "dev" else test) for k in ("dev", "test") if len(parts[k]) == 0}
    if not cut:
        return parts
    train = parts["train"]
    strat = None if stratify is None else stratify[train]
    sub = split_indices(len(train), dev=cut.get("dev", 0.0), test=cut.get("test", 0.0), seed=seed, stratify=strat)
    parts["train"] = train[sub["train"]]
    for k in cut:
        parts[k] = train[sub[k]]
    return parts


def _check_class_sizes(table: Table, labels: Labels) -> None:
    """Check that every class present has :data:`MIN_CLASS_ROWS` rows, one for each of train, dev and test.

    Raises:
        ValueError: a class has fewer rows (named with its count and its first line).
    """
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


def labelled_dataset(
    table: Table, *, task: str | None, label_names, dev: float = 0.1, test: float = 0.1, seed: int = 0,
    name: str, source: str = "", description: str | None = None, verbose: bool = True, given=None,
    names_reason: str = "label_names given",
) -> TextDataset:  # fmt: skip
    """Choose the task, encode the labels, split the rows and build the :class:`TextDataset`, as every reader does.

    Args:
        table: the rows read (checked by :func:`check_rows`).
        task: the task asked for, or None to infer it (and say why).
        label_names: the classes in their order, or None for the labels sorted.
        dev: the fraction of rows the seeded split puts in dev.
        test: the fraction of rows the seeded split puts in test.
        seed: the seed of the split.
        name: the data set's name.
        source: where the data came from (the file's path), kept in the data set.
        description: the data set's description (default ``"your data: <file>"``).
        verbose: print the number of rows, the task and why, and the split sizes.
        given: each row's split as its container kept them (see :func:`split_rows`), or None.
        names_reason: why the task is classes when ``label_names`` is given.

    Returns:
        The data set; its ``info`` holds the task's reason, how the file was read and the rows skipped.

    Raises:
        ValueError: the labels or the split do not fit (see :func:`task_and_labels`, :func:`split_rows`).

    Example:
        >>> table = Table(Columns(["t"], "l", None), "mine.csv")
        >>> read_records(table, [(i + 2, {"t": f"text {i}", "l": i % 3}) for i in range(30)])
        >>> ds = labelled_dataset(table, task=None, label_names=None, name="mine")
        mine.csv: 30 rows, task 'classification' (3 distinct integers, read as classes; pass task='regression' to
        predict the number instead); train 24, dev 3, test 3
        >>> ds.label_names, sorted(ds.info)
        (['0', '1', '2'], ['skipped_empty', 'task_reason'])
    """
    labels = task_and_labels(table, task, label_names, names_reason)
    parts = split_rows(table, labels, dev=dev, test=test, seed=seed, given=given)
    columns = table.columns
    texts_b = table.values[columns.texts[1]] if columns.pair else None
    pool = Split(table.values[columns.texts[0]], labels.values, texts_b)
    ds = TextDataset(
        name,
        labels.task,
        {k: pool.take(v) for k, v in parts.items()},
        labels.names,
        source=source,
        description=description or f"your data: {table.source}",
        info={"task_reason": labels.reason, **table.info, "skipped_empty": table.skipped},
    )
    if verbose:
        sizes = ", ".join(f"{k} {v:,}" for k, v in ds.sizes().items())
        print(f"{table.source}: {len(table):,} rows, task {labels.task!r} ({labels.reason}); " + sizes)
    return ds
