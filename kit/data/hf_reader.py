"""Hugging Face datasets for :func:`kit.data.read`: a ``datasets.Dataset`` or ``DatasetDict``, in memory or saved.

A ``Dataset`` is split like a CSV; a ``DatasetDict`` keeps ``train``, ``validation`` (or ``dev``), ``test`` (a missing
one cut from train, seeded); a ``ClassLabel``'s names are the label names. ``datasets`` is optional (the ``hf`` extra).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .labelled_table import Request, Table, check_columns, read_records

#: A ``DatasetDict``'s split names and the kit's split each becomes.
HF_SPLITS = {"train": "train", "validation": "dev", "valid": "dev", "val": "dev", "dev": "dev", "test": "test"}
#: What to install to read a saved Hugging Face dataset.
INSTALL_HF = "pip install 'nlp-course-kit[hf]' (or pip install datasets)"


def is_dataset(source) -> bool:
    """Whether ``source`` is a dataset in memory (a ``Dataset``, ``DatasetDict`` ...) rather than a path."""
    return not isinstance(source, (str, Path)) and not hasattr(source, "__fspath__")


def load_saved(path: Path):
    """The dataset ``save_to_disk`` wrote into the folder ``path``, read offline.

    ImportError without the ``datasets`` library (the message says what to install); ValueError if it cannot read it.
    """
    datasets = _datasets_library("reading a saved Hugging Face dataset")
    try:
        return datasets.load_from_disk(str(path))
    except Exception as exc:  # any failure of the library on the user's folder: said with its cause
        raise ValueError(
            f"{path.name}: the datasets library could not read this saved dataset ({type(exc).__name__}: {exc}). "
            "Save it again with dataset.save_to_disk(folder), with the same datasets version if it is older."
        ) from None


def hf_table(dataset, request: Request, source: str, verbose: bool = True) -> Table:
    """The named columns of a ``Dataset`` (or every kept split of a ``DatasetDict`` or dict of Datasets) as one table.

    A ``DatasetDict``'s rows keep their split (``table.given``), a ``ClassLabel`` its names (``table.class_names``);
    ``source`` names the dataset in messages; ``verbose`` says which splits are left out.

    Raises:
        KeyError: a named column is not in the dataset (the message lists the columns there are).
        TypeError: ``dataset`` is not a Dataset or DatasetDict (a streamed one, a DataFrame ...).
        ValueError: no train, a text not a string, a missing label (``ClassLabel`` -1); the row and fix named.

    Example:
        >>> import datasets
        >>> from kit.data.labelled_table import Columns
        >>> d = datasets.Dataset.from_dict({"text": ["a", "b"], "label": [1, 0]})
        >>> hf_table(datasets.DatasetDict(train=d, test=d), Request(Columns(text="text", label="label")), "mine").given
        ['train', 'train', 'test', 'test']
    """
    parts, left_out = _parts(dataset, request, source)
    class_names = _class_names(parts, request.columns.label, source)
    table = _read_parts(parts, request, source, class_names)
    table.class_names = class_names
    if left_out:
        table.info["left_out_splits"] = left_out
    if verbose and left_out:
        print(f"{source}: left out the split(s) {left_out} (the kit reads train, validation or dev, and test)")
    return table


def _datasets_library(purpose: str):
    """The ``datasets`` module."""
    try:
        import datasets
    except ImportError:
        raise ImportError(f"{purpose} needs the `datasets` library: {INSTALL_HF}.") from None
    return datasets


def own_name(dataset) -> str | None:
    """The dataset's own name (its ``info.dataset_name`` or builder's name), if it has one."""
    first = next(iter(dataset.values()), None) if isinstance(dataset, Mapping) else dataset
    info = getattr(first, "info", None)
    return getattr(info, "dataset_name", None) or getattr(info, "builder_name", None)


def _parts(dataset, request: Request, source: str) -> tuple[list[tuple[str | None, str | None, object]], list[str]]:
    """The splits to read, as ``(its name, the kit's split, Dataset)``, and the names of those left out."""
    datasets = _datasets_library("reading a Hugging Face dataset")
    if isinstance(dataset, datasets.Dataset):
        return [(None, None, dataset)], []
    if isinstance(dataset, (datasets.IterableDataset, datasets.IterableDatasetDict)):
        raise TypeError(
            f"{source} is streamed (an IterableDataset): kit.data.read takes a dataset in memory. Load it without "
            "streaming=True, or take rows first: datasets.Dataset.from_list(list(streamed.take(10_000)))."
        )
    if not (
        isinstance(dataset, Mapping) and dataset and all(isinstance(v, datasets.Dataset) for v in dataset.values())
    ):
        fix = " (a pandas DataFrame: datasets.Dataset.from_pandas(df), or df.to_parquet(path) and read the file)"
        raise TypeError(
            f"kit.data.read takes a path, or a datasets.Dataset or DatasetDict in memory, got {type(dataset).__name__}"
            + (fix if type(dataset).__name__ == "DataFrame" else "")
            + "."
        )
    if request.splits.column:
        raise ValueError(
            f"Splits(column={request.splits.column!r}) names a column of one Dataset; a DatasetDict keeps its own "
            f"splits ({list(dataset)}). Drop the column, or pass one Dataset."
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
    """The names of the label's ``ClassLabel`` (the same in every split), or None when it is not one."""
    features = [(h, part.features.get(label)) for h, _, part in parts]
    names = [getattr(f, "names", None) if type(f).__name__ == "ClassLabel" else None for _, f in features]
    if any(n != names[0] for n in names):
        which = ", ".join(f"{h!r}: {f}" for h, f in features)
        raise ValueError(
            f"{source}: the label column {label!r} differs between the splits ({which}). Cast them to one, "
            f"e.g. d['test'] = d['test'].cast_column({label!r}, d['train'].features[{label!r}])."
        )
    return list(names[0]) if names[0] is not None else None


def _read_parts(parts, request: Request, source: str, class_names) -> Table:
    """The rows of every split in one table, each row's kit split in ``given`` (None: the kit splits the rows)."""
    table = Table(request, source, "row", {"format": "hf_dataset"})
    wanted, label = request.wanted, request.columns.label
    if parts[0][0] is not None:
        table.info["hf_splits"] = {h: k for h, k, _ in parts}
    given = []
    for hf_name, kit_split, part in parts:
        check_columns(source + (f" (split {hf_name!r})" if hf_name else ""), part.column_names, wanted)
        values = part.select_columns(wanted).with_format(None)[:]
        places = [f"{i + 1} of split {hf_name!r}" if hf_name else i + 1 for i in range(part.num_rows)]
        if class_names is not None:
            values[label] = _label_names(table, places, values[label], class_names)
        records = ((places[i], {c: values[c][i] for c in wanted}) for i in range(part.num_rows))
        before = len(table)
        read_records(table, records)
        given += [kit_split] * (len(table) - before)
    table.given = None if set(given) <= {None, "train"} else given
    return table


def _label_names(table: Table, places: list, ids: list, names: list[str]) -> list:
    """A ``ClassLabel``'s ids as its names (None stays None: a missing label)."""
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
