"""Labelled words in the files the field shares: CSV, JSON lines and parquet.

The layout is the one of the ``group=k.csv`` files of the word-problem data (Merrill, Petty and
Sabharwal, *The Illusion of State in State-Space Models*, ICML 2024; reused by DeltaProduct,
FP-RNN and SLiCE): one word per row, with the columns

- ``seed``: the seed the row was drawn with;
- ``input``: the word, its symbol indices separated by spaces (``"3 0 4"``);
- ``target``: the class after every prefix, class indices separated by spaces (``"3 3 2"``);
  a file may instead give only the class of the whole word (one index).

JSON lines (``.jsonl``) carry the same keys with lists of integers (``{"seed": 0, "input": [3, 0,
4], "target": [3, 3, 2]}``); parquet (``.parquet``, optional extra ``parquet``: ``pyarrow``) the
same columns as int64 lists.  A file is read back against the automaton it is meant for: every
symbol index must be one of its symbols and every target the class the automaton gives, so a file
written for another task, or with another class numbering, is refused with the row that shows it.

>>> import tempfile, pathlib
>>> from bilinear.automata import from_spec
>>> from bilinear.automata.data import sample_words
>>> a = from_spec("cyclic:5")
>>> ds = sample_words(a, n=3, min_len=2, max_len=4, seed=1)
>>> path = pathlib.Path(tempfile.mkdtemp()) / "cyclic=4.csv"
>>> write_words(path, ds, seed=1).read_text().splitlines()[:2]
['seed,input,target', '1,4 0 0,4 4 4']
>>> back = read_words(path, a)
>>> back.words.tolist() == ds.words.tolist() and back.labels.tolist() == ds.labels.tolist()
True
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from pathlib import Path

import numpy as np

from bilinear.errors import DataError
from bilinear.extras import require
from bilinear.fileio import atomic_write

from .automaton import Automaton
from .data import MAX_POSITIONS, Dataset, labels_for

__all__ = ["FORMATS", "write_words", "read_words", "word_format", "words_digest", "MAX_FILE_BYTES", "MAX_ROWS", "MAX_WORD_LEN"]

#: File formats by extension.
FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".parquet": "parquet"}
#: Largest words file :func:`read_words` opens (checked before reading).
MAX_FILE_BYTES = 2 * 1024**3
#: Most rows :func:`read_words` accepts (counted while reading, or from parquet's metadata).
MAX_ROWS = 10_000_000
#: Longest word :func:`read_words` accepts.
MAX_WORD_LEN = 100_000
# Most token positions (rows x longest word) of the padded arrays read back (about 24 bytes each):
# MAX_POSITIONS, imported from bilinear.automata.data (the limit of sample_words and bilinear data).
#: Longest line of a CSV or JSON-lines file (characters), checked before the line is parsed: 50
#: characters a symbol, room for an index of up to 18 digits and its separator in both the word
#: and its targets of a word of :data:`MAX_WORD_LEN` symbols.
MAX_LINE_CHARS = 50 * MAX_WORD_LEN
_INDEX = re.compile(r"-?[0-9]{1,17}")  # ASCII digits only: "¹".isdigit() and Arabic-Indic digits are true

COLUMNS = ("seed", "input", "target")


def word_format(path, fmt: str | None = None) -> str:
    """The format of ``path``: ``fmt`` when given, else from the extension.

    >>> word_format("A5=3.csv"), word_format("x.data", "jsonl")
    ('csv', 'jsonl')
    """
    if fmt is not None:
        if fmt not in FORMATS.values():
            raise DataError(f"unknown words format {fmt!r} (known: {', '.join(FORMATS.values())})")
        return fmt
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise DataError(f"cannot tell the format of {str(path)!r} from its extension {suffix or '(none)'!r}: "
                        f"use {', '.join(FORMATS)}")
    return FORMATS[suffix]


def words_digest(dataset: Dataset) -> str:
    """``"sha256:..."`` of the words and labels of ``dataset`` (whatever file format held them):
    what a run stores to check, on resume, that its words file still holds the same words.

    >>> from bilinear.automata import from_spec
    >>> from bilinear.automata.data import sample_words
    >>> a = from_spec("parity")
    >>> one, two = (sample_words(a, n=4, min_len=2, max_len=5, seed=s) for s in (1, 2))
    >>> words_digest(one) == words_digest(one), words_digest(one) == words_digest(two)
    (True, False)
    """
    import hashlib

    h = hashlib.sha256()
    for array in (dataset.lengths, dataset.words, dataset.labels):
        a = np.ascontiguousarray(array, dtype=np.int64)
        h.update(repr(a.shape).encode())
        h.update(a.tobytes())
    return "sha256:" + h.hexdigest()


def _rows(dataset: Dataset):
    """``(input, target)`` index lists of every word of ``dataset``."""
    if not dataset.every:
        raise DataError("write_words needs labels at every position (sample_words(..., every=True))")
    for b in range(len(dataset)):
        n = int(dataset.lengths[b])
        yield [int(x) for x in dataset.words[b, :n]], [int(y) for y in dataset.labels[b, :n]]


def write_words(path, dataset: Dataset, seed: int = 0, fmt: str | None = None) -> Path:
    """Write ``dataset`` (labels at every position) to ``path`` (atomically), in the format of its
    extension or ``fmt``; returns the path.  Empty words have no row in the word-problem layout
    and are refused."""
    fmt = word_format(path, fmt)
    if (np.asarray(dataset.lengths) < 1).any():
        raise DataError("the word-problem layout has no empty words: use lengths >= 1")
    rows = list(_rows(dataset))
    if fmt == "parquet":
        pa = require("pyarrow", "parquet", "parquet files")
        pq = require("pyarrow.parquet", "parquet", "parquet files")
        table = pa.table({
            "seed": pa.array([seed] * len(rows), type=pa.int64()),
            "input": pa.array([r[0] for r in rows], type=pa.list_(pa.int64())),
            "target": pa.array([r[1] for r in rows], type=pa.list_(pa.int64())),
        })
        return atomic_write(path, lambda fh: pq.write_table(table, fh))
    buffer = io.StringIO(newline="")
    if fmt == "csv":
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(COLUMNS)
        for word, target in rows:
            writer.writerow([seed, " ".join(map(str, word)), " ".join(map(str, target))])
    else:
        for word, target in rows:
            buffer.write(json.dumps({"seed": seed, "input": word, "target": target}) + "\n")
    data = buffer.getvalue().encode("utf-8")
    return atomic_write(path, lambda fh: fh.write(data))


def _indices(value, where: str, what: str) -> list[int]:
    """A list of integers from a CSV cell (space-separated) or a JSON/parquet list."""
    if isinstance(value, str):
        parts = value.split()
        match = _INDEX.fullmatch
        if not all(match(p) and len(p) <= 18 for p in parts):
            bad = next(p for p in parts if not (match(p) and len(p) <= 18))
            raise DataError(f"{where}: {what} {bad[:20]!r} is not an integer index (ASCII digits)")
        return [int(p) for p in parts]
    if isinstance(value, (list, tuple)):
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in value):
            raise DataError(f"{where}: {what} must be a list of integers")
        return list(value)
    raise DataError(f"{where}: {what} must be a list of integers or a space-separated string, "
                    f"got {type(value).__name__}")


def _too_many(path: Path, max_rows: int) -> DataError:
    return DataError(f"{path} has more than {max_rows:,} rows (the limit; bilinear.automata.wordfile.MAX_ROWS)")


def _lines(fh, path: Path, limit: int = MAX_LINE_CHARS):
    """``(line number, line)`` of a text file, each line read at most ``limit`` characters at a
    time: a longer line is refused (DataError naming the file, the line and the limit) before it
    is held whole or parsed (one 800 MB line took 158 s and 4.2 GB to fail)."""
    for line_no, line in enumerate(iter(lambda: fh.readline(limit + 2), ""), start=1):
        if len(line.rstrip("\r\n")) > limit:
            raise DataError(f"{path} line {line_no}: longer than {limit:,} characters "
                            f"(bilinear.automata.wordfile.MAX_LINE_CHARS)")
        yield line_no, line


def _csv_records(fh, path: Path, max_rows: int):
    """The rows of a CSV words file, read through :func:`_lines` (the csv module's own field limit,
    131,072 characters by default, raised to the line limit for the read)."""
    old_limit = csv.field_size_limit(MAX_LINE_CHARS)
    try:
        reader = csv.reader(line for _, line in _lines(fh, path))
        try:
            header = next(reader)
        except StopIteration:
            raise DataError(f"{path} is empty: expected the header seed,input,target") from None
        except csv.Error as exc:
            raise DataError(f"{path} line 1: {exc}") from None
        if "input" not in header:
            raise DataError(f"{path} line 1: no 'input' column in the header {','.join(header)[:80]!r} "
                            f"(the word-problem layout: seed,input,target)")
        col_in = header.index("input")
        col_target = header.index("target") if "target" in header else None
        try:
            for n, row in enumerate(reader, start=1):
                if n > max_rows:
                    raise _too_many(path, max_rows)
                where = f"{path} line {reader.line_num}"
                if len(row) != len(header):
                    raise DataError(f"{where}: {len(row)} fields, the header has {len(header)}")
                yield where, row[col_in], None if col_target is None else row[col_target]
        except csv.Error as exc:
            raise DataError(f"{path} line {reader.line_num}: {exc}") from None
    finally:
        csv.field_size_limit(old_limit)


def _jsonl_records(fh, path: Path, max_rows: int):
    """The rows of a JSON-lines words file: each line bounded (:func:`_lines`) and parsed under the
    checks of every JSON file the toolkit reads (:func:`bilinear.jsonfile.parse_json_text`:
    nesting, integer digits, duplicate keys)."""
    from bilinear.jsonfile import parse_json_text

    n = 0
    for line_no, line in _lines(fh, path):
        if not line.strip():
            continue
        n += 1
        if n > max_rows:
            raise _too_many(path, max_rows)
        where = f"{path} line {line_no}"
        record = parse_json_text(line, DataError, where, line="")
        if not isinstance(record, dict) or "input" not in record:
            raise DataError(f"{where}: expected an object with an 'input' key")
        yield where, record["input"], record.get("target")


def _parquet_records(path: Path, max_rows: int, max_len: int):
    """The rows of a parquet words file, one row group at a time; every list's length is checked
    first: from the metadata's value counts (a row group whose values outnumber its rows times
    ``max_len + 1`` holds a longer word: one row of 10^8 zeros is a 1.4 kB file that took 3.4 GB
    to read), then from the offsets of the row group's list column, before any Python list is
    made."""
    pq = require("pyarrow.parquet", "parquet", "parquet files")
    pa = require("pyarrow", "parquet", "parquet files")
    pc = require("pyarrow.compute", "parquet", "parquet files")
    try:
        meta = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises its own types for a malformed file
        raise DataError(f"{path} is not a parquet file: {exc}") from None
    if meta.metadata.num_rows > max_rows:
        raise _too_many(path, max_rows)
    names = meta.schema_arrow.names
    if "input" not in names:
        raise DataError(f"{path} has no 'input' column (columns: {', '.join(names)})")
    columns = [c for c in ("input", "target") if c in names]
    paths = [meta.metadata.row_group(0).column(j).path_in_schema for j in range(meta.metadata.num_columns)] \
        if meta.metadata.num_row_groups else []
    leaves = {c: j for j, p in enumerate(paths) for c in columns if p.split(".")[0] == c}  # each column's leaf
    first = 0
    for g in range(meta.metadata.num_row_groups):
        group = meta.metadata.row_group(g)
        rows = group.num_rows
        for name, leaf in leaves.items():
            values = group.column(leaf).num_values
            if values > rows * (max_len + 1):
                raise DataError(f"{path} row group {g + 1} (rows {first + 1}-{first + rows}): {values:,} {name} "
                                f"values in {rows:,} rows, so a word longer than {max_len:,} "
                                f"(bilinear.automata.wordfile.MAX_WORD_LEN)")
        try:
            table = meta.read_row_group(g, columns=columns)
        except Exception as exc:  # pyarrow's own types for a corrupt page
            raise DataError(f"{path} row group {g + 1} is unreadable: {str(exc).splitlines()[0][:200]}") from None
        for name in columns:
            column = table.column(name)
            if pa.types.is_list(column.type) or pa.types.is_large_list(column.type):
                lengths = pc.fill_null(pc.list_value_length(column), 0)
                longest = pc.max(lengths).as_py() or 0
                if longest > max_len:
                    row = first + int(pc.index(lengths, longest).as_py()) + 1
                    raise DataError(f"{path} row {row}: a word of {longest:,} symbols is longer than {max_len:,} "
                                    f"(bilinear.automata.wordfile.MAX_WORD_LEN)")
        inputs = table.column("input").to_pylist()
        targets = table.column("target").to_pylist() if "target" in columns else [None] * len(inputs)
        for i, (word, target) in enumerate(zip(inputs, targets)):
            yield f"{path} row {first + i + 1}", word, target
        first += rows


def _records(path: Path, fmt: str, max_rows: int, max_len: int = MAX_WORD_LEN):
    """``(where, input, target or None)`` of every row, counting rows against ``max_rows``."""
    if fmt == "parquet":
        yield from _parquet_records(path, max_rows, max_len)
        return
    with open(path, encoding="utf-8", newline="") as fh:
        yield from (_csv_records if fmt == "csv" else _jsonl_records)(fh, path, max_rows)


def read_words(path, automaton: Automaton, fmt: str | None = None, max_bytes: int = MAX_FILE_BYTES,
               max_rows: int = MAX_ROWS, max_len: int = MAX_WORD_LEN) -> Dataset:
    """The labelled words of a file written by :func:`write_words` (or by the word-problem
    scripts), checked against ``automaton``: a :class:`Dataset` with labels at every position.

    DataError, naming the file and the row, for a file over ``max_bytes`` (checked before
    reading), more than ``max_rows`` rows, a word longer than ``max_len`` or empty, a symbol index
    outside the automaton's symbols, or a target that is not the class the automaton gives.
    """
    if not isinstance(automaton, Automaton):
        raise DataError(f"read_words needs an Automaton, got {type(automaton).__name__}")
    path = Path(path)
    fmt = word_format(path, fmt)
    if not path.is_file():
        raise DataError(f"words file {str(path)!r} does not exist or is not a file")
    size = os.path.getsize(path)
    if size > max_bytes:
        raise DataError(f"{path} has {size:,} bytes, over the limit of {max_bytes:,} "
                        f"(bilinear.automata.wordfile.MAX_FILE_BYTES)")
    words, targets, wheres = [], [], []
    positions = 0
    try:
        for where, raw_word, raw_target in _records(path, fmt, max_rows, max_len):
            word = _indices(raw_word, where, "symbol index")
            if not word:
                raise DataError(f"{where}: the word is empty")
            if len(word) > max_len:
                raise DataError(f"{where}: a word of {len(word):,} symbols is longer than {max_len:,} "
                                f"(bilinear.automata.wordfile.MAX_WORD_LEN)")
            bad = [x for x in word if not 0 <= x < automaton.n_symbols]
            if bad:
                raise DataError(f"{where}: symbol index {bad[0]} is not a symbol of {automaton.name or 'the automaton'} "
                                f"(0..{automaton.n_symbols - 1})")
            target = None if raw_target in (None, "") else _indices(raw_target, where, "class index")
            if target is not None and len(target) not in (1, len(word)):
                raise DataError(f"{where}: {len(target)} targets for a word of {len(word)} symbols "
                                f"(one per prefix, or one for the whole word)")
            words.append(word)
            targets.append(target)
            wheres.append(where)
            positions = max(positions, len(word))
            if positions * len(words) > MAX_POSITIONS:
                raise DataError(f"{path}: {len(words):,} words padded to {positions:,} symbols exceed "
                                f"{MAX_POSITIONS:,} positions (bilinear.automata.data.MAX_POSITIONS)")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path} is not UTF-8 text: {exc.reason}") from None
    if not words:
        raise DataError(f"{path} has no words")
    lengths = np.array([len(w) for w in words], dtype=np.int64)
    padded = np.zeros((len(words), int(lengths.max())), dtype=np.int64)  # (batch, time)
    for b, w in enumerate(words):
        padded[b, : len(w)] = w
    labels = labels_for(automaton, padded, lengths, every=True)
    for b, target in enumerate(targets):
        if target is None:
            continue
        expected = labels[b, : lengths[b]] if len(target) == lengths[b] else labels[b, lengths[b] - 1 : lengths[b]]
        wrong = np.flatnonzero(np.asarray(target) != expected)
        if wrong.size:
            t = int(wrong[0])
            pos = t + 1 if len(target) == lengths[b] else int(lengths[b])
            raise DataError(
                f"{wheres[b]}: target {target[t]} after {pos} symbols, but {automaton.name or 'the automaton'} "
                f"gives class {int(expected[t])} ({automaton.classes[int(expected[t])]}): the file is for "
                f"another task or numbers the classes differently")
    mask = np.arange(padded.shape[1])[None, :] < lengths[:, None]  # (batch, time)
    return Dataset(words=padded, lengths=lengths, labels=labels.astype(np.int64), mask=mask,
                   every=True, n_classes=automaton.n_classes)
