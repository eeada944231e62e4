"""The transformation monoid of an automaton, by vectorised breadth-first closure.

Every word ``w`` acts on the states as a transformation ``q -> q·w``; these transformations form
a monoid under "first ``u``, then ``v``" (the identity is the empty word).  The closure is
breadth-first over whole frontiers at once.  Children are generated parent-major and symbol-minor,
and a new element is numbered at its first occurrence, so element ``i``'s word — its parent's word
plus one symbol — is the **shortlex least** word of the element.

* Up to 8 states (:class:`_Codes`) an element is its integer code and nothing else: the images of
  the low half of the states in base ``n``, and above them, shifted by a whole number of bits,
  the images of the high half.  A frontier is composed with every generator by two table
  look-ups on the codes' two parts (each table one product with place values made once a
  process, :func:`~bilinear.automata.codetables._place_values`), the children mark a
  direct-address table with ``np.maximum.at`` (the mark of a code's first occurrence wins; a
  found code's number is above every mark), one level a round for a large frontier
  (:meth:`_Search.level`); a small one runs several levels a round on the codes' two parts
  (:meth:`_Search.code_round`: every candidate of every level, found or not, marked once), and
  the right rows, parents and symbols of such runs are filled once at the end
  (:meth:`_Search.finish_rounds`).  The rows are decoded once, at the end: up to 6 states by one
  look-up in a table of every code's row, kept once a process
  (:func:`~bilinear.automata.codetables._code_rows`), beyond by the two parts' digits as the
  bytes of one int64.
* Beyond, the frontier's rows ``(frontier, states)`` are composed by ``take``, encoded as integer
  keys (bit-packed, or a hash checked against the rows, or raw bytes), deduplicated with
  ``np.unique`` and looked up in a dict; a small frontier runs several levels in one round
  (:func:`_levels`): the candidates of all of them, level after level, are words in shortlex
  order, so an element's first occurrence among them is its shortlex-least word and the numbering
  is the level-by-level one.
* Past 128 states the closure runs on the images of a few sampled states (:func:`_samples`: a
  permutation group first as many as fit one exact 64-bit key, then 64), composes the elements
  in full once at the end (:func:`_materialise`) and checks the edges outside the breadth-first
  tree (:func:`_check_closed`), in blocks through buffers allocated once (:func:`_block_rows`);
  two elements alike on every sampled state fail the check, and the next sample (at last the
  whole rows) is tried.

The result is a :class:`Closure` of read-only arrays;
:func:`bilinear.automata.monoid.transformation_monoid` wraps it in the
:class:`~bilinear.automata.monoid.Monoid` value (this module imports no Monoid: the algorithm sits
below the value it feeds).

>>> from bilinear.automata import from_spec
>>> close(from_spec("dihedral:8")).elements.shape
(16, 16)
"""

from __future__ import annotations

import math
import sys
import time
from itertools import accumulate, repeat
from typing import NamedTuple

import numpy as np

from bilinear.argtypes import check_positive_int
from bilinear.errors import AutomatonError, MonoidTooLargeError

from .automaton import Automaton
from .codetables import _code_rows, _digit_rows, _identity_code, _keep_table, _place_values, _powers, _split, _take_table
from .sampled import _SAMPLE_COLUMNS, _block_rows, _Buffers, _check_closed, _HashCollision, _materialise, _samples

__all__ = [
    "Closure",
    "close",
    "full_transformation_automaton",
    "DEFAULT_LIMIT",
    "MEMORY_LIMIT_BYTES",
    "WORK_LIMIT",
    "row_bytes",
    "check_lower_bound",
]

#: Default largest number of elements the closure enumerates before raising MonoidTooLargeError.
DEFAULT_LIMIT = 2_000_000
#: Largest size in bytes of the closure's tables the closure will hold: per element its row
#: (states), its row of the right Cayley table (symbols x 8 bytes), parent and symbol, and its key.
MEMORY_LIMIT_BYTES = 2 * 1024**3
#: Largest closure work, in state entries composed (elements x symbols x states), before
#: MonoidTooLargeError: about a minute of numpy on one core (40-80 million entries a second).
#: Every element found is composed with every symbol once, so the closure refuses as soon as
#: ``elements found x symbols x states`` passes it -- long before it would have done the work.
WORK_LIMIT = 4_000_000_000
#: Bytes per element of a key held in a Python dict (packed and hashed modes).
_DICT_ENTRY_BYTES = 120
#: Progress goes to stderr only for closures running longer than this (seconds), then every as often.
PROGRESS_AFTER = 2.0
#: The direct-address table is used when states**states is at most this.
_DIRECT_TABLE_MAX = 1 << 24
#: Entries (children x states) generated per chunk (bounds the transient memory of one step).
_CHUNK_ENTRIES = 1 << 23


def _dtype_for(n: int) -> np.dtype:
    if n <= 1 << 8:
        return np.dtype(np.uint8)
    if n <= 1 << 16:
        return np.dtype(np.uint16)
    return np.dtype(np.int32)


class _Keys:
    """Encodes transformations (rows) as hashable, sortable keys, and finds them again.

    Modes: ``packed`` (exact bit-packed int64 in a hash map), ``hashed`` (a random 64-bit hash,
    checked by the caller), ``bytes`` (the raw row bytes; exact, slowest); ``direct`` is
    :class:`_Codes`' (up to 8 states the elements are codes indexing a table).
    """

    def __init__(self, n: int, dtype: np.dtype, exact: bool = False, values: int | None = None) -> None:
        self.n = n  # entries a row (the states, or the sampled states)
        self.dtype = dtype
        values = n if values is None else values  # each entry is below it (the automaton's states)
        bits = max(1, math.ceil(math.log2(values))) if values > 1 else 1
        self.map: dict = {}
        if bits * n <= 63:  # (up to 8 states the closure runs on codes instead: _Codes)
            self.mode = "packed"
            self.mult = np.array([1 << (bits * i) for i in range(n)], dtype=np.int64)
        elif not exact:
            self.mode = "hashed"
            rng = np.random.default_rng(0x5EED)
            self.mult = rng.integers(1, 2**63, size=n, dtype=np.int64).astype(np.uint64) | np.uint64(1)
        else:
            self.mode = "bytes"
            self.mult = None  # type: ignore[assignment]  # unused in bytes mode

    @property
    def exact(self) -> bool:
        return self.mode != "hashed"

    def encode(self, rows: np.ndarray) -> np.ndarray:
        """Keys of rows ``(m, states)``: an integer ``(m,)`` or a void (bytes) array ``(m,)``."""
        if self.mode == "packed":
            return rows.astype(np.int64) @ self.mult
        if self.mode == "hashed":
            with np.errstate(over="ignore"):  # arithmetic mod 2**64 is the point
                return rows.astype(np.uint64) @ self.mult
        rows = np.ascontiguousarray(rows, dtype=self.dtype)
        return rows.view(np.dtype((np.void, rows.dtype.itemsize * self.n))).reshape(-1)

    def lookup(self, keys: np.ndarray) -> np.ndarray:
        """Indices of ``keys`` (-1 where unknown), shape ``(m,)``."""
        return np.fromiter(map(self.map.get, keys.tolist(), repeat(-1)), dtype=np.int64, count=keys.shape[0])

    def insert(self, keys: np.ndarray, indices: np.ndarray) -> None:
        self.map.update(zip(keys.tolist(), indices.tolist()))


class _Codes(_Keys):
    """Direct keys that are the elements: an element of a monoid on ``n <= 8`` states is held as its
    code alone and composed without being decoded.  The code is two base-``n`` numbers: ``low``,
    the images of the low ``c = ceil(n/2)`` states (``sum_{q<c} row[q] n**q``), and ``high``, the
    images of the others (``sum_{q>=c} row[q] n**(q-c)``), as ``code = low + (high << s)`` with
    ``s`` the bits of ``n**c - 1`` (a shift and a mask split a code where a division by ``n**c``
    had cost twice as much).  Composing with a generator maps each part through a table of its
    own (``n**c`` rows), so a frontier of ``f`` elements costs two look-ups of ``f`` entries instead
    of ``f x n`` (the rows are decoded once, at the end: :meth:`decode`).

    The codes index a direct-address ``table`` (int32, ``n**(n-c) << s`` entries: under ``2 n**n``
    and at most ``2**24``): ``KNOWN`` plus the element's index plus one for a code found, 0 for the
    others, and during a level the marks of its candidates (:meth:`_Search.level`), all below
    ``KNOWN``.  Up to 7 states the table is kept from one closure to the next on as many states,
    cleared at the elements' codes (:func:`~bilinear.automata.codetables._keep_table`): zeroing a
    fresh one was about a ninth of S_7's closure on its points.  A larger one (8 states: 64 MiB) is
    made by ``np.zeros``, whose fresh zero pages cost only the pages the closure touches."""

    #: Above every mark of a level (at most its candidates, below 2**23) and, plus an index below
    #: 2**24, within int32.
    KNOWN = 1 << 30

    def __init__(self, gens: np.ndarray, dtype: np.dtype) -> None:
        k, n = gens.shape
        # _Keys.__init__'s direct mode, with the place values made once a process
        self.n, self.dtype, self.map, self.mode = n, dtype, {}, "direct"
        self.mult = _powers(n)
        c, shift = self.c, self.shift = _split(n)
        self.mask = (1 << self.shift) - 1
        self.table = _take_table(max(1, n ** (n - c) << self.shift))  # zero; kept from the last closure on n states
        images = gens.T.astype(np.int64)  # (states, symbols)
        self.low = _place_values(n, c, n) @ images  # (n**c, symbols)
        # (n**(n-c), symbols), the high part's digits alone: for an even n the low table
        high = self.low if 2 * c == n else _place_values(n, n - c, n) @ images
        self.high = high << self.shift  # the high part's contribution to the code
        self._high_digits = high  # C order, all three: take(axis=0) of an F-order table is 4x slower

    def encode(self, rows: np.ndarray) -> np.ndarray:
        """Codes are their own keys (found in ``table``, numbered by :meth:`_Search._number_codes`:
        no ``insert``)."""
        return rows

    @property
    def identity(self) -> int:
        """The identity's code (state ``q`` to ``q``)."""
        return _identity_code(self.n)

    def code(self, rows: np.ndarray) -> np.ndarray:
        """Codes of rows ``(m, states)``, shape ``(m,)``."""
        rows, c = rows.astype(np.int64), self.c
        return rows[:, :c] @ self.mult[:c] + (rows[:, c:] @ self.mult[: self.n - c] << self.shift)

    def children(self, codes: np.ndarray) -> np.ndarray:
        """Codes of every element followed by every generator, parent-major, symbol-minor ``(m * symbols,)``."""
        return np.add(self.low.take(codes & self.mask, axis=0),
                      self.high.take(codes >> self.shift, axis=0)).reshape(-1)

    def step(self, high: np.ndarray, low: np.ndarray, out: tuple[np.ndarray, np.ndarray]) -> None:
        """:meth:`children` on codes split into their high and low parts, giving the children's
        parts in ``out`` (two arrays ``(m, symbols)``): two look-ups, no sum (a run of levels
        combines the parts once, :meth:`_Search.code_round`).  ``mode="wrap"``: an index is
        never out of range (a part is below its table's rows), so wrapping never moves one; checked
        take copies its output, and ``"clip"`` clamps every index (a third slower than wrap on
        numpy 2.4: 25 against 16.5 us for 27,000 look-ups)."""
        self._high_digits.take(high, axis=0, out=out[0], mode="wrap")
        self.low.take(low, axis=0, out=out[1], mode="wrap")

    def decode(self, codes: np.ndarray) -> np.ndarray:
        """Rows ``(m, states)`` (uint8) of codes ``(m,)``: the rows of :func:`_code_rows` where it is
        kept (``n <= 6``), else the two parts' digits read as bytes
        (:func:`~bilinear.automata.codetables._digit_rows`)."""
        rows = _code_rows(self.n)
        if rows is not None:  # one look-up, contiguous (a copy of a strided byte view cost twice the look-ups)
            return rows.take(codes, axis=0)
        return _digit_rows(self.n, codes & self.mask, codes >> self.shift)


class Closure(NamedTuple):
    """The closure's read-only arrays (see :class:`~bilinear.automata.monoid.Monoid` for their
    meaning): ``elements`` (size, states), ``right`` (size, symbols), ``parent`` and ``via``
    (size,), ``generators`` (symbols, states)."""

    elements: np.ndarray
    right: np.ndarray
    parent: np.ndarray
    via: np.ndarray
    generators: np.ndarray


def close(automaton: Automaton, limit: int = DEFAULT_LIMIT, *,
          time_budget: float | None = None, progress=False) -> Closure:
    """The transformation monoid of ``automaton`` by breadth-first closure, as arrays.

    Raises :class:`~bilinear.errors.MonoidTooLargeError` (naming ``limit``) as soon as more than
    ``limit`` elements are found, when its tables (elements, right Cayley table, keys) would
    exceed :data:`MEMORY_LIMIT_BYTES`, or when the work (elements found x symbols x states)
    passes :data:`WORK_LIMIT` — before memory or time runs out.  ``time_budget`` (seconds) stops
    a slower closure with the same error; ``progress=True`` prints a line on stderr every
    2 s once the closure has run 2 s, a callable ``progress(elements_found)`` is called instead
    at every step (``bilinear describe`` hands it to its :class:`~bilinear.progress.Progress`).

    >>> from bilinear.automata import from_spec
    >>> close(from_spec("symmetric:4")).elements.shape[0]
    24
    >>> close(full_transformation_automaton(5), limit=100)
    Traceback (most recent call last):
    ...
    bilinear.errors.MonoidTooLargeError: the transformation monoid of T_5 has more than 100 elements (limit=100)
    """
    if not isinstance(automaton, Automaton):
        raise AutomatonError(f"the transformation monoid needs an Automaton, got {type(automaton).__name__}")
    limit = check_positive_int(limit, "monoid limit", error=AutomatonError)
    if time_budget is not None and (isinstance(time_budget, bool) or not isinstance(time_budget, (int, float))
                                    or not time_budget > 0):
        raise AutomatonError(f"time_budget must be a positive number of seconds, got {time_budget!r}")
    clock = _Clock(automaton.name or "this automaton", time_budget, progress)
    if automaton.n_states > 2 * _SAMPLE_COLUMNS:
        for sample in _samples(automaton):
            try:
                return _closure(automaton, limit, exact=False, clock=clock, sample=sample)
            except _HashCollision:  # two elements alike on the sampled states: more states, then whole rows
                pass
    try:
        return _closure(automaton, limit, exact=False, clock=clock)
    except _HashCollision:  # pragma: no cover - probability about size**2 / 2**64
        return _closure(automaton, limit, exact=True, clock=clock)


class _Clock:
    """The closure's time budget and its progress lines (stderr, only once it runs long)."""

    def __init__(self, what: str, budget: float | None, progress) -> None:
        self.what, self.budget = what, budget
        self.report = progress if callable(progress) else None
        self.progress = bool(progress) and self.report is None
        self.start = self.last = time.monotonic()

    def tick(self, size: int) -> None:
        now = time.monotonic()
        if self.budget is not None and now - self.start > self.budget:
            raise MonoidTooLargeError(
                f"the transformation monoid of {self.what} was not enumerated within the time budget "
                f"of {self.budget:g} s ({size:,} elements found so far)")
        if self.report is not None:
            self.report(size)
        if self.progress and now - self.start >= PROGRESS_AFTER and now - self.last >= PROGRESS_AFTER:
            self.last = now
            print(f"monoid of {self.what}: {size:,} elements, {now - self.start:.1f} s", file=sys.stderr)


def _direct(n: int) -> bool:
    """True when the n**n transformations fit the direct-address table (decided without
    computing n**n: a 10^7-state automaton's would be a 7·10^7-digit integer)."""
    return n <= 8 and n**n <= _DIRECT_TABLE_MAX


def row_bytes(n_states: int, n_symbols: int) -> int:
    """Bytes the closure holds per element of a monoid on ``n_states`` states and ``n_symbols``
    symbols: the element's row, its right Cayley row (int64 per symbol), parent and symbol, and
    its key (a dict entry; up to 8 states the int64 code the closure runs on, :class:`_Codes`)."""
    key = 8 if _direct(n_states) else _DICT_ENTRY_BYTES
    return n_states * _dtype_for(n_states).itemsize + 8 * n_symbols + 16 + key


#: Entries (candidate rows x key columns; candidates, for codes) one round of the closure may
#: generate when it runs several levels of a small frontier at once (:func:`_levels`).  For codes,
#: 1,024-2,048 candidates a round were fastest on S_6 and S_7 on their points (fewer rounds against
#: more candidates: a round also expands the children of elements found before).
_ROUND_ENTRIES = 1 << 11
#: A round of codes from a frontier smaller than the one before (the closure is ending: S_6 on its
#: points, from 29 elements at depth 16, has 8 more in two levels) generates at most this fraction
#: of :data:`_ROUND_ENTRIES`.
_SHRINKING = 4
#: Most levels one round runs.
_ROUND_LEVELS = 24
#: ``m, m - 1, ..., 1`` for a round of ``m`` candidates is its last ``m`` (:meth:`_Search._number_codes`).
_MARKS = np.arange(1 << 12, 0, -1, dtype=np.int32)
_MARKS.setflags(write=False)


def _levels(frontier: int, k: int, width: int, chunk: int) -> int:
    """How many breadth-first levels one round runs from a frontier of ``frontier`` elements: one
    for a frontier of more than ``chunk`` (then it is taken in chunks), else as many as keep the
    candidates (``frontier x (k + k^2 + ... + k^m)`` rows of ``width`` entries) within
    :data:`_ROUND_ENTRIES`.  A small monoid then costs a few rounds instead of a round per level."""
    if frontier > chunk:
        return 1
    levels, rows, total = 1, frontier * k, frontier * k
    while levels < _ROUND_LEVELS and (total + rows * k) * width <= _ROUND_ENTRIES:
        rows *= k
        total += rows
        levels += 1
    return levels


class _Tables:
    """The closure's growing arrays, the first ``size`` rows filled: ``rows`` (the key rows: whole
    transformations, or the sampled states' images), ``parent``, ``via`` and ``right``."""

    def __init__(self, width: int | None, k: int, dtype: np.dtype, max_rows: int) -> None:
        self.capacity = min(max_rows, 1024)
        self.max_rows = max_rows
        shape = (self.capacity,) if width is None else (self.capacity, width)  # None: codes
        self.rows = np.empty(shape, dtype=dtype)  # row 0 (the identity) set by the caller
        self.parent = np.empty(self.capacity, dtype=np.int64)  # each element's set when it is found
        self.via = np.empty(self.capacity, dtype=np.int64)
        self.parent[0] = self.via[0] = -1  # the identity: no parent
        self.right = np.empty((self.capacity, k), dtype=np.int64)
        self.size = 1

    def reserve(self, count: int) -> None:
        if self.size + count > self.capacity:
            self.capacity = min(self.max_rows, max(2 * self.capacity, self.size + count))
            self.rows = _grow(self.rows, self.capacity)
            self.parent = _grow(self.parent, self.capacity)
            self.via = _grow(self.via, self.capacity)
            self.right = _grow(self.right, self.capacity)


def _closure(automaton: Automaton, limit: int, exact: bool, clock: _Clock | None = None,
             sample: np.ndarray | None = None) -> Closure:
    """The breadth-first closure; with ``sample`` (states), elements are keyed by their images of
    those states alone and the closure runs on those images; the elements are then composed in
    full, parent first (:func:`_materialise`), and the closure checked whole (:func:`_check_closed`)."""
    n, k = automaton.n_states, automaton.n_symbols
    dtype = _dtype_for(n)
    what = automaton.name or "this automaton"
    max_rows = min(limit, max(1, MEMORY_LIMIT_BYTES // row_bytes(n, k)))
    clock = clock or _Clock(what, None, False)
    gens = automaton.delta.astype(dtype)  # (symbols, states)
    _check_group_lower_bound(automaton, limit, max_rows, what)
    width = n if sample is None else len(sample)
    if sample is None and _direct(n):  # the elements are their codes (_Codes)
        keys: _Keys = _Codes(gens, dtype)
        t = _Tables(None, k, np.dtype(np.int64), max_rows)
        t.rows[0] = code = keys.identity  # type: ignore[attr-defined]
        keys.table[code] = _Codes.KNOWN + 1  # type: ignore[attr-defined]  # the identity is element 0
    else:
        keys = _Keys(width, dtype, exact=exact, values=n)
        t = _Tables(width, k, dtype, max_rows)
        t.rows[0] = np.arange(n, dtype=dtype) if sample is None else sample.astype(dtype)  # the identity
        keys.insert(keys.encode(t.rows[:1]), np.zeros(1, dtype=np.int64))
    bfs = _Search(gens, keys, t, clock, _Limits(what, n, k, limit, max_rows))
    chunk = max(1, _CHUNK_ENTRIES // (k * n))
    level_start, level_end, last = 0, 1, 1
    while level_start < level_end:
        if isinstance(keys, _Codes):
            # a frontier smaller than the last one: the closure is ending, fewer levels it may not need
            shrinking = level_end - level_start < last
            last = level_end - level_start
            levels = _levels(last, k, _SHRINKING if shrinking else 1, chunk)
            if levels > 1:  # a small frontier: several levels in one round, right rows at the end
                level_start, level_end = bfs.code_round(level_start, level_end, levels), t.size
                continue
            for lo in range(level_start, level_end, chunk):
                bfs.level(lo, min(level_end, lo + chunk))
            level_start, level_end = level_end, t.size
            continue
        levels = _levels(level_end - level_start, k, width, chunk)
        if levels > 1:  # a small frontier: several levels in one round
            level_start, level_end = bfs.round(level_start, level_end, levels), t.size
            continue
        for lo in range(level_start, level_end, chunk):
            bfs.round(lo, min(level_end, lo + chunk), 1)
        level_start, level_end = level_end, t.size
    size = t.size
    clock.tick(size)  # the last report: every element found
    if isinstance(keys, _Codes):
        bfs.finish_rounds(chunk)
        elements = keys.decode(t.rows[:size])
        _keep_table(keys.table, t.rows[:size])  # every entry written is an element's code
    elif sample is None:
        elements = t.rows
    else:
        buffers = _Buffers(_block_rows(size, n), n, gens.dtype)
        elements = _materialise(gens, t.parent[:size], t.via[:size], buffers)
        _check_closed(gens, elements, t.right[:size], t.parent[:size], t.via[:size], buffers)
    return _final(automaton, size, elements, t.right, t.parent, t.via)


class _Limits(NamedTuple):
    what: str
    n: int
    k: int
    limit: int
    max_rows: int

    def check(self, size: int) -> None:
        """MonoidTooLargeError when ``size`` elements would pass the work or the size limits."""
        if size > max(1, WORK_LIMIT // (self.k * self.n)):  # each element found is composed once
            raise _too_costly(self.what, size, self.k, self.n)
        if size > self.max_rows:
            raise _too_large(self.what, self.n, self.k, self.max_rows, self.limit)


class _Search:
    """One breadth-first search: its generators, keys, tables, clock and limits."""

    def __init__(self, gens: np.ndarray, keys: _Keys, tables: _Tables, clock: _Clock, limits: _Limits) -> None:
        self.gens, self.keys, self.t, self.clock, self.limits = gens, keys, tables, clock, limits
        self.chains: list[list[int]] = []  # [lo, hi, first, end] of consecutive code rounds (code_round)
        self.room = 0  # elements the tables hold within the limits, as of the last _reserve
        self.marked = np.empty(_MARKS.shape[0], dtype=np.int32)  # a round's marks read back (_number_codes)

    def code_round(self, lo: int, hi: int, levels: int) -> int:
        """``levels`` breadth-first levels of codes (:class:`_Codes`) from the elements ``lo..hi`` (the
        whole frontier, of depth L) in one round; returns the index of the first element found at
        depth L + ``levels`` (the next frontier runs from it to ``size``).

        The candidates of level j are those of level j - 1 followed by each symbol (all of them,
        found or not), parent-major and symbol-minor, so the candidates of all levels, in order, are
        the words in shortlex order: an element's first occurrence (marked as in :meth:`level`)
        gives its shortlex-least word.  Only the elements are numbered here; the right rows of the
        frontier and of the elements found below the last level, and the parents and symbols of
        every element found, are filled at the end (:meth:`finish_rounds`), once for a run of
        rounds."""
        t, keys, k = self.t, self.keys, self.gens.shape[0]
        assert isinstance(keys, _Codes)
        self.clock.tick(t.size)
        frontier = t.rows[lo:hi]
        parts = frontier >> keys.shift, frontier & keys.mask
        size = hi - lo
        total = size * (k ** (levels + 1) - k) // (k - 1) if k > 1 else size * levels  # the candidates
        cand = np.empty(2 * total, dtype=np.int64)  # the high parts of all levels, then the low parts
        at = 0
        lows, cand = cand[total:], cand[:total]
        for _ in range(levels):  # each level's parts written in place: nothing to concatenate
            end, size = at + size * k, size * k
            high, low = cand[at:end], lows[at:end]
            keys.step(*parts, (high.reshape(-1, k), low.reshape(-1, k)))
            parts, at = (high, low), end
        cand <<= keys.shift  # the high parts, then the codes
        cand += lows
        start = t.size
        new = self._number_codes(cand)
        count = new.shape[0]
        inner = start + int(new.searchsorted(total - size))  # found below the last level (of size candidates)
        chain = self.chains[-1] if self.chains else None
        if chain is not None and chain[1] == lo:
            chain[1], chain[3] = inner, start + count
        else:
            self.chains.append([lo, inner, start, start + count])
        return inner

    def finish_rounds(self, chunk: int) -> None:
        """What :meth:`code_round` left unset, for each run of rounds ``[lo, hi, first, end]``: the
        right rows of ``lo..hi`` (every child looked up in the direct table), then the parent and
        symbol of each element ``first..end`` found in the run, its first occurrence in those right
        rows, row-major (the elements are numbered in shortlex order, so the least (parent, symbol)
        leading to an element is its shortlex-least word's; its parent is in ``lo..hi``)."""
        t, keys, k = self.t, self.keys, self.gens.shape[0]
        assert isinstance(keys, _Codes)
        for lo, hi, first, end in self.chains:
            for a in range(lo, hi, chunk):
                b = min(hi, a + chunk)
                np.subtract(keys.table.take(keys.children(t.rows[a:b])), keys.KNOWN + 1,
                            out=t.right[a:b].reshape(-1))
            edges = t.right[lo:hi].reshape(-1)  # all below end (the run found every child of lo..hi)
            at = np.full(end, edges.shape[0], dtype=np.int64)  # the first edge into each element
            np.minimum.at(at, edges, np.arange(edges.shape[0]))
            parent = t.parent[first:end]
            np.divmod(at[first:end], k, out=(parent, t.via[first:end]))
            parent += lo

    def round(self, lo: int, hi: int, levels: int) -> int:
        """Run ``levels`` breadth-first levels from the elements ``lo..hi`` (all of one depth L, the
        whole frontier unless ``levels`` is 1), numbering the new ones; returns the index of the
        first element found at depth L + ``levels`` (the next frontier runs from it to ``size``).

        The candidates of level j are those of level j - 1 followed by each symbol, parent-major and
        symbol-minor, so the candidates of all levels, in order, are the words in shortlex order:
        an element's first occurrence (unless it was known) gives its shortlex-least word, and its
        parent is the element of the candidate that generated it."""
        t, k, keys = self.t, self.gens.shape[0], self.keys
        f = hi - lo
        self.clock.tick(t.size)
        parts, cur = [], t.rows[lo:hi]
        for _ in range(levels):
            # children[p, a] = first p, then symbol a: gens[a][p]
            # (take: several times faster than gens[:, cur] on small arrays)
            cur = self.gens.take(cur, axis=1).transpose(1, 0, 2).reshape(-1, cur.shape[1])
            parts.append(cur)
        cand = parts[0] if levels == 1 else np.concatenate(parts)
        ckeys = keys.encode(cand)
        found = keys.lookup(ckeys)
        unknown = (found < 0).nonzero()[0]
        last = t.size
        if unknown.size:
            last = self._number(lo, hi, levels, cand, ckeys, found, unknown)
        if not keys.exact and not (t.rows.take(found, axis=0) == cand).all():
            raise _HashCollision
        t.right[lo:hi] = found[: f * k].reshape(f, k)
        return last

    def level(self, lo: int, hi: int) -> None:
        """One breadth-first level of codes (:class:`_Codes`) from the elements ``lo..hi``, numbered
        as :meth:`round` numbers them (first occurrences in candidate order) without a look-up
        before the marking: candidate ``j`` of ``m`` marks its code with ``m - j`` by
        ``np.maximum.at``, so a code not yet found keeps the mark of its first occurrence and a
        found one its number (above every mark); the candidates that read back their own mark are
        the new elements."""
        t, keys, k = self.t, self.keys, self.gens.shape[0]
        assert isinstance(keys, _Codes)
        self.clock.tick(t.size)
        cand = keys.children(t.rows[lo:hi])
        start = t.size
        new = self._number_codes(cand)
        if new.shape[0]:
            parent = t.parent[start : t.size]
            np.divmod(new, k, out=(parent, t.via[start : t.size]))
            parent += lo
        np.subtract(keys.table.take(cand), keys.KNOWN + 1, out=t.right[lo:hi].reshape(-1))

    def _number_codes(self, cand: np.ndarray) -> np.ndarray:
        """Number the new elements among the candidate codes ``cand`` in order of first occurrence
        (their rows appended, the direct table updated; parents and symbols are the caller's) and
        return their candidate positions, increasing: candidate ``j`` of ``m`` marks its code with
        ``m - j`` by ``np.maximum.at``, so a code not yet found keeps the mark of its first
        occurrence and a found one its number (above every mark); the candidates that read back
        their own mark are the new elements."""
        t, table = self.t, self.keys.table  # type: ignore[attr-defined]  # _Codes only
        m = cand.shape[0]
        marks = _MARKS[_MARKS.shape[0] - m :] if m <= _MARKS.shape[0] else np.arange(m, 0, -1, dtype=table.dtype)
        np.maximum.at(table, cand, marks)
        read = self.marked[:m] if m <= self.marked.shape[0] else np.empty(m, dtype=table.dtype)
        new = (table.take(cand, out=read, mode="wrap") == marks).nonzero()[0]  # codes are in range: unbuffered
        count, start = new.shape[0], t.size
        if count:
            if start + count > self.room:
                self._reserve(count)
            codes = cand.take(new, out=t.rows[start : start + count], mode="wrap")
            known = _Codes.KNOWN + 1 + start
            table[codes] = np.arange(known, known + count, dtype=table.dtype)
            t.size += count
        return new

    def _number(self, lo, hi, levels, cand, ckeys, found, unknown) -> int:
        """Number the unknown candidates' elements in order of first occurrence (filling ``found``),
        with their rows, parents, symbols and (below the last level) right Cayley rows."""
        t, k = self.t, self.gens.shape[0]
        f = hi - lo
        start = t.size
        new = self._first_new(ckeys, found, unknown, start)  # candidate positions, increasing
        count = new.shape[0]
        t.rows[start : start + count] = cand.take(new, axis=0)
        if levels == 1:  # every new element is a frontier element followed by a symbol
            parent = t.parent[start : start + count]
            np.divmod(new, k, out=(parent, t.via[start : start + count]))
            parent += lo
            t.size += count
            return start
        # positions in [frontier | level 1 | level 2 | ...]: level j starts at ends[j]
        ends = np.array(list(accumulate([f * k**j for j in range(levels + 1)], initial=0)))
        at = new + f
        level = np.searchsorted(ends, at, side="right") - 1
        rel = at - ends[level]
        everyone = np.concatenate((np.arange(lo, hi, dtype=np.int64), found))
        t.parent[start : start + count] = everyone.take(ends[level - 1] + rel // k)
        t.via[start : start + count] = rel % k
        inner = (level < levels).nonzero()[0]  # their children are candidates too
        if inner.size:
            children = (ends[level[inner] + 1] - f + rel[inner] * k)[:, None] + np.arange(k)
            t.right[start + inner] = found.take(children)
        t.size += count
        return start + inner.size

    def _first_new(self, ckeys: np.ndarray, found: np.ndarray, unknown: np.ndarray, start: int) -> np.ndarray:
        """Number the distinct unknown keys from ``start`` in order of first occurrence, insert them
        and fill ``found`` at the unknown positions; returns the first occurrences' positions."""
        # np.unique(uk, return_index=True, return_inverse=True) spelt out (half its time on the
        # few hundred keys of a round: S_6's Cayley automaton, 40 against 20 us a call): a stable
        # sort puts each key's first occurrence at the head of its run
        keys, uk = self.keys, ckeys.take(unknown)
        perm = uk.argsort(kind="stable")
        ordered = uk.take(perm)
        head = np.empty(ordered.shape[0], dtype=bool)
        head[:1] = True
        head[1:] = ordered[1:] != ordered[:-1]  # (np.not_equal has no loop for the bytes keys' void type)
        first = perm[head]  # per distinct key (in key order), the position of its first occurrence
        order = first.argsort()  # shortlex order of the new ones (the positions are distinct)
        count = first.shape[0]
        self._reserve(count)
        number = np.empty(count, dtype=np.int64)
        number[order] = np.arange(start, start + count, dtype=np.int64)
        found[unknown.take(perm)] = number.take(np.cumsum(head) - 1)
        keys.insert(ordered[head], number)
        return unknown.take(first.take(order))

    def _reserve(self, count: int) -> None:
        """Room for ``count`` more elements, within the limits."""
        self.limits.check(self.t.size + count)
        self.t.reserve(count)
        # a size within it passes the limits' check (the capacity is at most max_rows)
        self.room = min(self.t.capacity, max(1, WORK_LIMIT // (self.limits.k * self.limits.n)))


def _too_costly(what: str, size: int, k: int, n: int) -> MonoidTooLargeError:
    return MonoidTooLargeError(
        f"the transformation monoid of {what} is too costly to enumerate: the closure would compose "
        f"more than {WORK_LIMIT:,} state entries (elements x symbols x states = {size:,}+ x {k} x {n} "
        f"= {size * k * n:,}+); the limit is bilinear.automata.closure.WORK_LIMIT"
    )


def _too_large(what: str, n: int, k: int, max_rows: int, limit: int) -> MonoidTooLargeError:
    """The error for a closure that outgrew its memory bound or its element limit."""
    if max_rows < limit:
        return MonoidTooLargeError(
            f"the transformation monoid of {what} needs more than "
            f"{MEMORY_LIMIT_BYTES // 1024**2} MiB ({row_bytes(n, k):,} bytes per element for "
            f"{n} states and {k} symbols, over {max_rows:,} elements); the limit is "
            f"bilinear.automata.closure.MEMORY_LIMIT_BYTES"
        )
    return MonoidTooLargeError(
        f"the transformation monoid of {what} has more than {limit} elements (limit={limit})"
    )


def _final(automaton: Automaton, size: int, elements, right, parent, via) -> Closure:
    """The :class:`Closure` of the first ``size`` rows, read-only: views of the tables when they are
    at least half full (the tables grow by doubling: at most twice the memory kept, no copy), else
    copies (a small monoid does not keep a table of 1,024 rows)."""
    def final(array: np.ndarray) -> np.ndarray:
        out = array[:size] if 2 * size >= array.shape[0] else np.array(array[:size], copy=True)
        out.setflags(write=False)
        return out

    generators = automaton.delta.astype(np.int64)  # a copy
    generators.setflags(write=False)
    return Closure(final(elements), final(right), final(parent), final(via), generators)


def _check_group_lower_bound(automaton: Automaton, limit: int, max_rows: int, what: str) -> None:
    """Fail at once when every symbol is a permutation and an orbit is already too large: a
    group acting transitively on an orbit has at least as many elements as the orbit
    (orbit-stabiliser), so the closure could not finish within the limits."""
    delta = automaton.delta
    n, k = automaton.n_states, automaton.n_symbols
    if k * k * n > WORK_LIMIT:  # else no count of distinct symbols (at most k) could refuse
        # every distinct symbol is an element: a lower bound on the work before any is done
        probe = np.random.default_rng(0).integers(1, 2**62, size=n, dtype=np.int64)
        with np.errstate(over="ignore"):  # a collision only lowers the bound
            distinct = int(np.unique(delta.astype(np.int64) @ probe).shape[0])
        if distinct * k * n > WORK_LIMIT:
            raise _too_costly(what, distinct, k, n)
    if n <= min(limit, max_rows) and n * k * n <= WORK_LIMIT:
        return  # an orbit (at most n states) could not refuse
    if not (np.sort(delta, axis=1) == np.arange(automaton.n_states)).all():
        return
    label = np.arange(automaton.n_states, dtype=np.int64)
    while True:  # orbits of a permutation group: the least point of each generator's cycles, by doubling
        new = label
        for perm in delta:  # after j doublings m[q] = min of new over q, perm(q), ..., perm^(2^j - 1)(q)
            m, step = new, perm
            while True:  # log2 of the longest cycle rounds (one step at a time was quadratic on a long cycle)
                nxt = np.minimum(m, m[step])
                if np.array_equal(nxt, m):
                    break
                m, step = nxt, step[step]
            new = m
        new = new[new]
        if np.array_equal(new, label):
            break
        label = new
    orbit = int(np.bincount(label).max())
    if orbit > limit:
        raise MonoidTooLargeError(
            f"the transformation monoid of {what} has more than {limit} elements (limit={limit}): "
            f"it is a group with an orbit of {orbit} states"
        )
    if orbit > max_rows:
        raise MonoidTooLargeError(
            f"the transformation monoid of {what} needs more than {MEMORY_LIMIT_BYTES // 1024**2} MiB "
            f"for its {automaton.n_states}-state elements: it is a group with an orbit of {orbit} states"
        )
    if orbit * automaton.n_symbols * automaton.n_states > WORK_LIMIT:
        raise _too_costly(what, orbit, automaton.n_symbols, automaton.n_states)


def check_lower_bound(what: str, elements: int, n_states: int, n_symbols: int, limit: int = DEFAULT_LIMIT,
                      why: str = "") -> None:
    """The closure's three limits (``limit``, :data:`MEMORY_LIMIT_BYTES`, :data:`WORK_LIMIT`) applied
    to a lower bound on the monoid's size known before the automaton is built (``describe
    cyclic:7000``: the group's order from the spec; the closure itself would refuse after building a
    4.9·10^7-entry table).  ``why`` says where the bound comes from.

    >>> check_lower_bound("cyclic:2000", 2000, 2000, 2000, why="a group of order 2,000")
    Traceback (most recent call last):
    ...
    bilinear.errors.MonoidTooLargeError: the transformation monoid of cyclic:2000 is too costly to enumerate: the closure would compose more than 4,000,000,000 state entries (elements x symbols x states = 2,000+ x 2000 x 2000 = 8,000,000,000+); the limit is bilinear.automata.closure.WORK_LIMIT (decided before building it: a group of order 2,000)
    """
    note = f" (decided before building it: {why})" if why else ""
    if elements > limit:
        raise MonoidTooLargeError(f"the transformation monoid of {what} has more than {limit} elements "
                                  f"(limit={limit}){note}")
    max_rows = max(1, MEMORY_LIMIT_BYTES // row_bytes(n_states, n_symbols))
    if elements > max_rows:
        raise MonoidTooLargeError(str(_too_large(what, n_states, n_symbols, max_rows, limit + 1)) + note)
    if elements * n_symbols * n_states > WORK_LIMIT:
        raise MonoidTooLargeError(str(_too_costly(what, elements, n_symbols, n_states)) + note)


def _grow(array: np.ndarray, capacity: int) -> np.ndarray:
    out = np.empty((capacity,) + array.shape[1:], dtype=array.dtype)
    out[: array.shape[0]] = array
    return out


def full_transformation_automaton(n: int) -> Automaton:
    """An automaton whose transformation monoid is the full transformation monoid ``T_n``
    (``n**n`` elements): a transposition, an ``n``-cycle and a map of rank ``n-1`` as symbols.

    >>> close(full_transformation_automaton(3)).elements.shape[0]
    27
    """
    n = check_positive_int(n, "full_transformation_automaton: n", error=AutomatonError)
    if n == 1:
        return Automaton([[0]], symbols=("id",), name="T_1")
    transposition = [1, 0] + list(range(2, n))
    cycle = list(range(1, n)) + [0]
    collapse = [0, 0] + list(range(2, n))
    return Automaton([transposition, cycle, collapse], symbols=("t", "c", "z"), name=f"T_{n}")
