"""The tables of the closure's codes (:class:`~bilinear.automata.closure._Codes`), each a
function of the number of states alone and made once a process, and the broadcast sum that
builds them (:func:`_chunk_table`).

Up to 8 states the closure holds an element as its code: the images of the low ``c = ceil(n/2)``
states in base ``n`` (``low``) and, shifted ``s`` bits above them (``s`` the bits of ``n**c - 1``),
the images of the others (``high``): ``code = low + (high << s)``.  Composing a code with a
generator maps each part through a table of its own, one product of the place values
(:func:`_place_values`) with the generator's images; decoding reads the digits as bytes
(:func:`_digit_bytes`), or up to 6 states takes each code's whole row from one table
(:func:`_code_rows`).  The tables are read-only: a caller writing into one would change every
later closure.  docs/automata.md describes the closure they serve.
"""

from __future__ import annotations

import functools

import numpy as np


@functools.cache
def _place_values(n: int, m: int, base: int) -> np.ndarray:
    """``(n**m, n)`` int64, read-only: row ``x = sum_j x_j n**j`` (digits ``x_j < n``, ``j < m``) holds
    ``sum_j base**j [x_j = q]`` in column ``q``.  A number's digits mapped through ``f`` and read in
    base ``base`` is then ``row @ f``: with ``f`` a generator's images and ``base = n``, the code
    contribution of ``m`` states after the generator (:class:`~bilinear.automata.closure._Codes`, one
    product per table); with ``f`` the identity and ``base = 256``, the digits as the bytes of an
    int64 (:meth:`~bilinear.automata.closure._Codes.decode`).
    It depends on ``n``, ``m`` and ``base`` alone (``n <= 8``: at most 4,096 x 8 entries), so it is
    made once a process, not once a closure."""
    table = _chunk_table(np.eye(n, dtype=np.int64), m, np.array([base**j for j in range(m)], dtype=np.int64))
    table.setflags(write=False)
    return table


@functools.cache
def _powers(n: int) -> np.ndarray:
    """``n**q`` for ``q < n`` (int64, read-only): the place values of a row's entries in base ``n``."""
    powers = np.array([n**q for q in range(n)], dtype=np.int64)
    powers.setflags(write=False)
    return powers


@functools.cache
def _digit_bytes(n: int, c: int, at: int) -> np.ndarray:
    """``(n**c,)`` int64, read-only: the ``c`` base-``n`` digits of every number below ``n**c`` as
    bytes of one int64 (digit ``j`` in byte ``at + j``), made once a process (:func:`_place_values`)."""
    table = (_place_values(n, c, 256) @ np.arange(n, dtype=np.int64)) << 8 * at
    table.setflags(write=False)
    return table


#: :func:`_code_rows` is kept for code spaces of at most this many bytes of rows (``n <= 6``: 324 KiB).
_CODE_ROWS_BYTES = 1 << 19


def _split(n: int) -> tuple[int, int]:
    """``(c, s)`` of a code on ``n`` states: the low part holds the images of the first
    ``c = ceil(n/2)`` states, and the high part sits ``s`` bits above it, ``s`` the bits of
    ``n**c - 1``."""
    c = (n + 1) // 2
    return c, (n**c - 1).bit_length()


@functools.cache
def _identity_code(n: int) -> int:
    """The code of the identity on ``n`` states (:class:`~bilinear.automata.closure._Codes`): state
    ``q`` to ``q``."""
    c, shift = _split(n)
    return sum(q * n**q for q in range(c)) + (sum(q * n ** (q - c) for q in range(c, n)) << shift)


@functools.cache
def _code_rows(n: int) -> np.ndarray | None:
    """``(n**(n-c) << s, n)`` uint8, read-only: row ``code`` is the transformation of that code
    (:class:`~bilinear.automata.closure._Codes`; rows of codes whose low part is ``n**c`` or more
    are never read), made once a process from :func:`_digit_bytes`; None when it would pass :data:`_CODE_ROWS_BYTES`."""
    c, shift = _split(n)
    size = n ** (n - c) << shift
    if size * n > _CODE_ROWS_BYTES:
        return None
    codes = np.arange(size, dtype=np.int64)
    rows = _digit_rows(n, np.minimum(codes & ((1 << shift) - 1), n**c - 1), codes >> shift)
    rows.setflags(write=False)
    return rows


def _digit_rows(n: int, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Rows ``(m, n)`` (uint8) of codes given by their parts (each below ``n**c``): each part's
    digits looked up as the bytes of one int64 (digit ``q`` in byte ``q``; the numbers of
    ``n - c`` digits are the first ``n**(n-c)`` of ``c`` digits, the top digits 0), the high
    part's shifted ``c`` bytes, the two added and the bytes read as the row."""
    c, _ = _split(n)
    packed = _digit_bytes(n, c, 0).take(low) + _digit_bytes(n, c, c).take(high)
    return np.ascontiguousarray(packed.astype("<i8", copy=False).view(np.uint8).reshape(-1, 8)[:, :n])


#: A closure's direct-address table (:class:`~bilinear.automata.closure._Codes`) of at most this
#: many bytes is kept for the next closure on as many states (``n <= 7``: 5.4 MiB), cleared
#: entry by entry: zeroing a fresh one cost about 58 us of S_7's 520 us closure on its 7 points
#: (a freed table comes back from the heap, not as fresh zero pages), 1.4 us of S_6's 130 us.
_KEPT_TABLE_BYTES = 1 << 23

#: The kept tables, all zero, by their number of entries (one each at most).
_kept_tables: dict[int, np.ndarray] = {}


def _take_table(size: int) -> np.ndarray:
    """A zero int32 table of ``size`` entries: the kept one when there is one (it is no longer
    kept: a closure running meanwhile makes its own), else a new one."""
    table = _kept_tables.pop(size, None)
    return np.zeros(size, dtype=np.int32) if table is None else table


def _keep_table(table: np.ndarray, used: np.ndarray) -> None:
    """Keep ``table`` for the next closure of its size after clearing its entries at ``used``
    (every entry a closure wrote: the codes of its elements); not kept above
    :data:`_KEPT_TABLE_BYTES`.  Only a closure that ended is kept: one stopped by an error may
    have left marks anywhere, and its table is dropped."""
    if table.nbytes <= _KEPT_TABLE_BYTES:
        table[used] = 0
        _kept_tables[table.shape[0]] = table


def _chunk_table(images: np.ndarray, m: int, weights: np.ndarray) -> np.ndarray:
    """``(n**m, symbols)``: for every ``x = sum_j x_j n**j`` with digits ``x_j < n`` (``j < m``),
    ``sum_j images[x_j, a] * weights[j]`` -- the code contribution of ``m`` states whose images are
    the digits of ``x``, after generator ``a`` (``images`` = the generators transposed).  A sum of
    one broadcast axis per digit, built without indexing."""
    k = images.shape[1]
    if m == 0:
        return np.zeros((1, k), dtype=np.int64)
    parts = np.multiply(weights[:m, None, None], images, dtype=np.int64, order="C")  # (digits, n, symbols)
    table = parts[m - 1]
    for j in range(m - 2, -1, -1):  # the digits above j in front, digit j appended (the least significant last)
        table = np.add(table[:, None], parts[j]).reshape(-1, k)
    return table
