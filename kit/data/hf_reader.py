"""Your own data as a Hugging Face dataset: a ``datasets.Dataset`` or ``DatasetDict``, in memory or saved to disk.

:func:`from_hf` takes a dataset in memory: one ``Dataset`` is split by the kit like a CSV (seeded and stratified,
or by a ``split`` column); a ``DatasetDict`` keeps its ``train``, ``validation`` (or ``dev``) and ``test`` splits,
and a split it lacks is cut from train, seeded. A ``ClassLabel`` label's names are the label names, in its order,
and its ids map to them. :func:`from_hf_disk` reads a folder ``save_to_disk`` wrote, offline. The ``datasets``
library is optional (``pip install 'nlp-course-kit[hf]'``) and imported only here, inside the functions. The checks
and messages after that are the CSV reader's (:mod:`kit.data.labelled_table`), each naming the row (from 1) and,
in a ``DatasetDict``, its split.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from .dataset import TextDataset
from .file_formats import HF_MARKERS, format_hint, is_hf_disk
from .labelled_table import Columns, Table, check_columns, check_rows, labelled_dataset, named_columns, read_records

#: A ``DatasetDict``'s split names and the kit's split each becomes.
HF_SPLITS = {"train": "train", "validation": "dev", "valid": "dev", "val": "dev", "dev": "dev", "test": "test"}
#: What to install for :func:`from_hf_disk`.
INSTALL_HF = "pip install 'nlp-course-kit[hf]' (or pip install datasets)"


def from_hf(
    dataset, text: str | None = None, label: str | None = None, *, text_a: str | None = None,
    text_b: str | None = None, task: str | None = None, label_names: list[str] | None = None, split: str | None = None,
    dev: float = 0.1, test: float = 0.1, seed: int = 0, skip_empty: bool = False, name: str | None = None,
    verbose: bool = True,
) -> TextDataset:  # fmt: skip
    """Turn a Hugging Face ``datasets.Dataset`` or ``DatasetDict`` into a :class:`TextDataset`.

    Single texts: ``from_hf(ds, text="text", label="label")``; pairs: ``from_hf(ds, text_a="premise",
    text_b="hypothesis", label="label")``. One ``Dataset`` is split train/dev/test, seeded and stratified (or by a
    ``split`` column); a ``DatasetDict`` keeps its splits (``validation`` becomes dev) and cuts the ones it lacks
    from train, seeded (``dev``/``test`` of train's rows); other splits (``unsupervised``) are left out and said.

    Args:
        dataset: a ``datasets.Dataset`` or ``DatasetDict`` (or a dict of Datasets).
        text: the text column (single texts).
        label: the label column; a ``ClassLabel`` gives the label names, in its order.
        text_a: the first text column of a pair (give ``text_b`` too).
        text_b: the second text column of a pair.
        task: ``"classification"`` or ``"regression"`` (pairs: ``"pairs"`` or ``"pair_regression"``); inferred
            when omitted, and the choice is printed, as for a CSV (:func:`kit.data.from_csv`).
        label_names: the classes in their order (default: a ``ClassLabel``'s names, else the labels sorted).
        split: a column holding ``train``/``dev``/``test`` (one ``Dataset`` only), instead of the seeded split.
        dev: the fraction of rows the seeded split puts in dev.
        test: the fraction of rows the seeded split puts in test.
        seed: the seed of the split.
        skip_empty: drop the rows with an empty or null text (without it they are an error).
        name: the data set's name (default: the dataset's own name, or ``"hf_dataset"``).
        verbose: print the number of rows, the task and why, and the split sizes.

    Returns:
        The data set; its ``info`` holds the task's reason, the splits read and left out, and the rows skipped.

    Raises:
        KeyError: a column you named is not in the dataset (the message lists the columns there are).
        TypeError: ``dataset`` is not a Dataset or DatasetDict (a streamed one, a DataFrame ...).
        ValueError: the arguments or a row do not fit: a DatasetDict without train, a text that is not a string, a
            missing label (a ``ClassLabel``'s -1), an empty text, one class, a class with fewer than 3 rows; the
            message names the row and the fix.

    Example:
        >>> import datasets
        >>> labels = datasets.ClassLabel(names=["neg", "pos"])
        >>> features = datasets.Features({"text": datasets.Value("string"), "label": labels})
        >>> rows = {"text": [f"text {i}" for i in range(30)], "label": [i % 2 for i in range(30)]}
        >>> train = datasets.Dataset.from_dict(rows, features=features)
        >>> ds = from_hf(datasets.DatasetDict(train=train, test=train.select(range(6))), text="text", label="label")
        hf_dataset: 36 rows, task 'classification' (the label is a ClassLabel: its names); train 27, dev 3, test 6
        >>> ds.label_names
        ['neg', 'pos']
    """
    columns = named_columns(text, label, text_a=text_a, text_b=text_b, split=split, task=task, reader="from_hf")
    source = name or _own_name(dataset) or "hf_dataset"
    table, given, label_names, names_reason = _read_dataset(dataset, columns, source, label_names, skip_empty, verbose)
    return labelled_dataset(
        table, task=task, label_names=label_names, dev=dev, test=test, seed=seed, name=source,
        description=f"your data: the Hugging Face dataset {source}", verbose=verbose, given=given,
        names_reason=names_reason,
    )  # fmt: skip


def _read_dataset(dataset, columns: Columns, source: str, label_names, skip_empty: bool, verbose: bool):
    """The rows of ``dataset``'s splits as one table, the given splits, the label names and where they come from."""
    parts, left_out = _parts(dataset, columns, source)
    class_names = _class_names(parts, columns.label, source)
    table, given = _read_parts(parts, columns, source, class_names, label_names=label_names, skip_empty=skip_empty)
    if left_out:
        table.info["left_out_splits"] = left_out
    if verbose and left_out:
        print(f"{source}: left out the split(s) {left_out} (the kit reads train, validation or dev, and test)")
    names_reason = "label_names given"
    if label_names is None and class_names is not None:
        label_names, names_reason = class_names, "the label is a ClassLabel: its names"
    return table, given, label_names, names_reason


def from_hf_disk(
    path, text: str | None = None, label: str | None = None, *, text_a: str | None = None, text_b: str | None = None,
    task: str | None = None, label_names: list[str] | None = None, split: str | None = None, dev: float = 0.1,
    test: float = 0.1, seed: int = 0, skip_empty: bool = False, name: str | None = None, verbose: bool = True,
) -> TextDataset:  # fmt: skip
    """Read a folder that ``datasets.save_to_disk`` wrote (a Dataset or a DatasetDict) into a :class:`TextDataset`.

    Read offline with ``datasets.load_from_disk``, then as :func:`from_hf` reads a dataset in memory: a DatasetDict
    keeps its splits, one Dataset is split by the kit.

    Args:
        path: the folder (it holds ``dataset_dict.json``, or ``state.json`` and ``dataset_info.json``).
        text: the text column (single texts).
        label: the label column; a ``ClassLabel`` gives the label names, in its order.
        text_a: the first text column of a pair (give ``text_b`` too).
        text_b: the second text column of a pair.
        task: the task, or None to infer it (see :func:`from_hf`).
        label_names: the classes in their order (default: a ``ClassLabel``'s names, else the labels sorted).
        split: a column holding ``train``/``dev``/``test`` (a saved Dataset only).
        dev: the fraction of rows the seeded split puts in dev.
        test: the fraction of rows the seeded split puts in test.
        seed: the seed of the split.
        skip_empty: drop the rows with an empty or null text (without it they are an error).
        name: the data set's name (default: the folder's name).
        verbose: print the number of rows, the task and why, and the split sizes.

    Returns:
        The data set; its ``source`` is the folder.

    Raises:
        FileNotFoundError: there is no such folder.
        ImportError: the ``datasets`` library is not installed (the message says what to install).
        KeyError: a column you named is not in the dataset.
        ValueError: the folder is not one ``save_to_disk`` wrote, ``datasets`` cannot read it, or a row does not
            fit (see :func:`from_hf`).

    Example:
        >>> import datasets, tempfile
        >>> folder = Path(tempfile.mkdtemp()) / "saved"
        >>> rows = {"q1": [f"a {i}" for i in range(20)], "q2": [f"b {i}" for i in range(20)]}
        >>> rows["dup"] = [i % 2 == 0 for i in range(20)]
        >>> datasets.Dataset.from_dict(rows).save_to_disk(folder)
        >>> ds = from_hf_disk(folder, text_a="q1", text_b="q2", label="dup", verbose=False)
        >>> ds.task, ds.label_names, ds.sizes()
        ('pairs', ['false', 'true'], {'train': 16, 'dev': 2, 'test': 2})
    """
    path = _saved_folder(path)
    datasets = _datasets_library("reading a saved Hugging Face dataset")
    try:
        loaded = datasets.load_from_disk(str(path))
    except Exception as exc:  # any failure of the library on the user's folder: said with its cause
        raise ValueError(
            f"{path.name}: the datasets library could not read this saved dataset ({type(exc).__name__}: {exc}). "
            "Save it again with dataset.save_to_disk(folder), with the same datasets version if it is older."
        ) from None
    ds = from_hf(
        loaded, text, label, text_a=text_a, text_b=text_b, task=task, label_names=label_names, split=split, dev=dev,
        test=test, seed=seed, skip_empty=skip_empty, name=name or path.name, verbose=verbose,
    )  # fmt: skip
    return replace(ds, source=str(path), description=f"your data: the saved Hugging Face dataset {path.name}")


def _datasets_library(purpose: str):
    """The ``datasets`` module.

    Raises:
        ImportError: it is not installed; the message says what to install.
    """
    try:
        import datasets
    except ImportError:
        raise ImportError(f"{purpose} needs the `datasets` library: {INSTALL_HF}.") from None
    return datasets


def _saved_folder(path) -> Path:
    """``path`` as a :class:`~pathlib.Path`, checked to be a folder ``save_to_disk`` wrote.

    Raises:
        FileNotFoundError: there is no such folder.
        ValueError: it is a file, or a folder without ``save_to_disk``'s files.
    """
    path = Path(path).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"No such folder: {path}. Check the path (relative paths start at {Path.cwd()}).")
    if not path.is_dir():
        inside = next((p for p in (path.parent, path.parent.parent) if is_hf_disk(p)), None)
        raise ValueError(
            f"{path.name} is a file; a saved Hugging Face dataset is the folder save_to_disk wrote."
            + (f" This file is part of one: pass the folder {inside}." if inside else format_hint(path, "hf_disk"))
        )
    if not is_hf_disk(path):
        found = sorted(p.name for p in path.iterdir())[:10]
        raise ValueError(
            f"{path.name} is not a folder that datasets' save_to_disk wrote: it has none of {list(HF_MARKERS)} "
            f"(it holds {found}). Pass the folder you saved (a DatasetDict's, or one split's inside it)."
        )
    return path


def _own_name(dataset) -> str | None:
    """The dataset's own name (its ``info.dataset_name`` or builder's name), if it has one."""
    first = next(iter(dataset.values()), None) if isinstance(dataset, Mapping) else dataset
    info = getattr(first, "info", None)
    return getattr(info, "dataset_name", None) or getattr(info, "builder_name", None)


def _parts(dataset, columns: Columns, source: str) -> tuple[list[tuple[str | None, str | None, object]], list[str]]:
    """The splits to read, as ``(its name, the kit's split, Dataset)``, and the names of those left out.

    One Dataset is ``[(None, None, it)]``; a DatasetDict's splits other than train, validation/dev and test
    (``unsupervised``, ...) are left out.

    Raises:
        TypeError: ``dataset`` is not a Dataset or a DatasetDict (a streamed one, a DataFrame ...).
        ValueError: a DatasetDict with ``split=``, without train, or with two splits for one of the kit's.
    """
    datasets = _datasets_library("reading a Hugging Face dataset")
    if isinstance(dataset, datasets.Dataset):
        return [(None, None, dataset)], []
    if isinstance(dataset, (datasets.IterableDataset, datasets.IterableDatasetDict)):
        raise TypeError(
            f"{source} is streamed (an IterableDataset): from_hf reads a dataset in memory. Load it without "
            "streaming=True, or take rows first: datasets.Dataset.from_list(list(streamed.take(10_000)))."
        )
    if not (
        isinstance(dataset, Mapping) and dataset and all(isinstance(v, datasets.Dataset) for v in dataset.values())
    ):
        fix = " (a pandas DataFrame: datasets.Dataset.from_pandas(df), or from_csv on a file)"
        raise TypeError(
            f"from_hf takes a datasets.Dataset or DatasetDict, got {type(dataset).__name__}"
            + (fix if type(dataset).__name__ == "DataFrame" else "")
            + "."
        )
    if columns.split:
        raise ValueError(
            f"split={columns.split!r} names a column of one Dataset; a DatasetDict keeps its own splits "
            f"({list(dataset)}). Drop split=, or pass one Dataset."
        )
    kept = [(k, HF_SPLITS[k.lower()], v) for k, v in dataset.items() if k.lower() in HF_SPLITS]
    ours = [k for _, k, _ in kept]
    twice = sorted({k for k in ours if ours.count(k) > 1})
    if twice or "train" not in ours:
        problem = (
            f"both {[h for h, k, _ in kept if k in twice]} would be the kit's {twice[0]!r}" if twice else "no train"
        )
        raise ValueError(
            f"{source} has the splits {list(dataset)}: {problem}. The kit reads train, validation (or dev) and "
            "test; pass a DatasetDict with those, e.g. DatasetDict(train=d['train'], test=d['test'])."
        )
    return kept, [k for k in dataset if k.lower() not in HF_SPLITS]


def _class_names(parts, label: str, source: str) -> list[str] | None:
    """The names of the label's ``ClassLabel`` (the same in every split), or None when it is not one.

    Raises:
        ValueError: the splits' label features differ.
    """
    features = [(h, part.features.get(label)) for h, _, part in parts]
    names = [getattr(f, "names", None) if type(f).__name__ == "ClassLabel" else None for _, f in features]
    if any(n != names[0] for n in names):
        which = ", ".join(f"{h!r}: {f}" for h, f in features)
        raise ValueError(
            f"{source}: the label column {label!r} differs between the splits ({which}). Cast them to one, "
            f"e.g. d['test'] = d['test'].cast_column({label!r}, d['train'].features[{label!r}])."
        )
    return list(names[0]) if names[0] is not None else None


def _read_parts(parts, columns: Columns, source: str, class_names, *, label_names, skip_empty) -> tuple[Table, list]:
    """The rows of every split in one table, with each row's kit split (None for one Dataset, split by the kit).

    Raises:
        KeyError: a named column is not in a split.
        ValueError: a row does not fit (see :func:`kit.data.labelled_table.read_records`).
    """
    table = Table(columns, source, "row", {"format": "hf_dataset"})
    if parts[0][0] is not None:
        table.info["hf_splits"] = {h: k for h, k, _ in parts}
    given = []
    for hf_name, kit_split, part in parts:
        check_columns(source + (f" (split {hf_name!r})" if hf_name else ""), part.column_names, columns.wanted)
        values = part.select_columns(columns.wanted).with_format(None)[:]
        places = [f"{i + 1} of split {hf_name!r}" if hf_name else i + 1 for i in range(part.num_rows)]
        if class_names is not None:
            values[columns.label] = _label_names(table, places, values[columns.label], class_names)
        records = ((places[i], {c: values[c][i] for c in columns.wanted}) for i in range(part.num_rows))
        before = len(table)
        read_records(table, records, label_names=label_names, skip_empty=skip_empty)
        given += [kit_split] * (len(table) - before)
    check_rows(table, skip_empty)
    return table, (None if set(given) <= {None, "train"} else given)


def _label_names(table: Table, places: list, ids: list, names: list[str]) -> list:
    """A ``ClassLabel``'s ids as its names (None stays None: a missing label).

    Raises:
        ValueError: an id is -1 (``ClassLabel``'s "no label") or outside the names.
    """
    out = []
    for place, i in zip(places, ids):
        if i == -1:
            table.missing_label(
                place,
                "-1, a ClassLabel's 'no label'",
                ". A benchmark's test split often hides its labels: keep the labelled splits only, e.g. "
                "DatasetDict(train=d['train'], validation=d['validation']), and the kit cuts test from train.",
            )
        if i is not None and not 0 <= i < len(names):
            raise ValueError(f"{table.at(place)}: label id {i} is outside the ClassLabel's {len(names)} names {names}.")
        out.append(None if i is None else names[i])
    return out
