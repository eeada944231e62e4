"""Hostile words files (issue 46: N3, N5, N9, N10, N11, N13): every line, list and number is
bounded before it is parsed or materialised, and ``data`` writes only files ``train --data``
reads back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bilinear.automata import from_spec
from bilinear.automata.wordfile import MAX_LINE_CHARS, MAX_WORD_LEN, read_words
from bilinear.cli import main
from bilinear.errors import DataError

PARITY = from_spec("parity")
#: One row whose word is 10^8 zeros, zstd: 659 bytes (made by ``pq.write_table(pa.table({"input":
#: pa.ListArray.from_arrays(pa.array([0, 10**8], pa.int32()), pa.array(np.zeros(10**8, np.int64)))}),
#: path, compression="zstd")``, 12 s: kept as a file so the test takes a fraction of a second).
ZEROS = Path(__file__).parent / "data" / "one-row-of-1e8-zeros.parquet"


def _one_line(proc) -> str:
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr[-2000:]
    return proc.stderr


def test_a_parquet_row_of_1e8_zeros_is_refused_from_the_metadata(capped_cli, tmp_path):
    """N3: 3.4 GB and 29 s, then a MemoryError traceback (the table was read and ``to_pylist``-ed
    before the word length was checked)."""
    pytest.importorskip("pyarrow")
    proc = capped_cli("train", "parity", "diagonal", "--data", ZEROS, "--out", tmp_path / "run", timeout=120)
    assert proc.returncode == 2
    assert (f"row group 1 (rows 1-1): 100,000,000 input values in 1 rows, so a word longer than {MAX_WORD_LEN:,}"
            in _one_line(proc))
    assert not (tmp_path / "run").exists()


def test_a_long_parquet_row_is_refused_from_the_offsets(tmp_path):
    """Within a row group whose values do not give it away, the list offsets name the row."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "w.parquet"
    pq.write_table(pa.table({"input": pa.array([[0, 1], [1] * 9, [0]], type=pa.list_(pa.int64()))}), path,
                   row_group_size=3)
    with pytest.raises(DataError, match=r"w.parquet row 2: a word of 9 symbols is longer than 5 "):
        read_words(path, PARITY, max_len=5)  # 12 values in 3 rows: within 3 x (5 + 1)
    pq.write_table(pa.table({"input": pa.array([[0, 1], [1] * 9], type=pa.list_(pa.int64()))}), path,
                   row_group_size=1)
    with pytest.raises(DataError, match=r"row group 2 \(rows 2-2\): 9 input values in 1 rows"):
        read_words(path, PARITY, max_len=5)
    assert read_words(path, PARITY, max_len=9).lengths.tolist() == [2, 9]  # at the limit: read


def test_a_jsonl_line_past_the_line_limit_is_refused_before_parsing(tmp_path):
    """N5: one 800 MB line took 158 s and 4.2 GB, then a MemoryError.  A line is read at most
    MAX_LINE_CHARS characters at a time (this row would be a valid word of 2 symbols)."""
    path = tmp_path / "w.jsonl"
    ok = json.dumps({"input": [0, 1], "target": [0, 1]})
    padded = json.dumps({"input": [0, 1], "target": [0, 1], "note": "x" * MAX_LINE_CHARS})
    path.write_text(ok + "\n" + padded + "\n")
    with pytest.raises(DataError, match=rf"w.jsonl line 2: longer than {MAX_LINE_CHARS:,} characters "
                                        r"\(bilinear.automata.wordfile.MAX_LINE_CHARS\)"):
        read_words(path, PARITY)
    path.write_text(ok + "\n" + padded[: MAX_LINE_CHARS - len(padded) - 2] + '"}\n')  # exactly at the limit
    assert len(path.read_text().splitlines()[1]) == MAX_LINE_CHARS
    assert read_words(path, PARITY).lengths.tolist() == [2, 2]


def test_a_csv_line_past_the_line_limit_is_refused(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("seed,input,target\n0,0 1,0 1\n0," + "0 " * (MAX_LINE_CHARS // 2 + 1) + ",0\n")
    with pytest.raises(DataError, match=rf"w.csv line 3: longer than {MAX_LINE_CHARS:,} characters"):
        read_words(path, PARITY)


@pytest.mark.parametrize("digit", ["\u00b9", "\u0661", "\uff11"])  # superscript one, Arabic-Indic one, full-width one
def test_only_ascii_digits_are_indices(tmp_path, digit):
    """N9: ``"¹".isdigit()`` is true (a ValueError traceback), and the Arabic-Indic one was read as 1."""
    path = tmp_path / "w.csv"
    path.write_text(f"seed,input,target\n0,{digit} 0 1,\n")
    with pytest.raises(DataError, match=rf"w.csv line 2: symbol index '{digit}' is not an integer index "
                                        r"\(ASCII digits\)"):
        read_words(path, PARITY)
    path.write_text("seed,input,target\n0,1 0 1,1 1 0\n")
    assert read_words(path, PARITY).words.tolist() == [[1, 0, 1]]


def test_a_jsonl_integer_of_5000_digits_is_refused(tmp_path):
    """N10: Python's int-string limit (4,300 digits) raised a ValueError, not a JSONDecodeError."""
    path = tmp_path / "w.jsonl"
    path.write_text('{"input": [' + "1" * 5000 + "]}\n")
    with pytest.raises(DataError, match=r"w.jsonl line 1: an integer of 5000 digits \(the limit is 1000\)"):
        read_words(path, PARITY)


def test_a_jsonl_row_nested_100000_deep_is_refused(tmp_path):
    """N11: a RecursionError; words files get the depth limit of automaton and weights files."""
    path = tmp_path / "w.jsonl"
    path.write_text('{"input": [0, 1]}\n{"input": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with pytest.raises(DataError, match="w.jsonl line 2: JSON nested deeper than 64 levels"):
        read_words(path, PARITY)


def test_data_writes_only_what_train_reads(tmp_path, capsys):
    """N13: ``data --lengths 90000 90000`` wrote a CSV that ``train --data`` refused ("field larger
    than field limit (131072)"); past MAX_WORD_LEN ``data`` refuses and writes nothing."""
    path = tmp_path / "long.csv"
    assert main(["data", "cyclic:12", "--lengths", "90000", "90000", "--count", "2", "--out", str(path)]) == 0
    back = read_words(path, from_spec("cyclic:12"))  # indices of two digits: 180,000-character fields
    assert back.lengths.tolist() == [90_000, 90_000] and len(path.read_text().splitlines()[1]) > 131_072
    capsys.readouterr()
    over = tmp_path / "over.csv"
    assert main(["data", "parity", "--lengths", "5", str(MAX_WORD_LEN + 1), "--count", "2", "--out", str(over)]) == 2
    err = capsys.readouterr().err
    assert f"words of {MAX_WORD_LEN + 1:,} symbols are longer than {MAX_WORD_LEN:,}" in err and err.count("\n") == 1
    assert not over.exists()
