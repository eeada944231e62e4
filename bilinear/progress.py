"""Progress of long work: a bar on a terminal, one line every few seconds anywhere else.

A sweep whose stderr goes to a file (a batch job, ``nohup``, CI) used to be silent until it
finished; a progress bar there would be carriage returns in a log.  :class:`Progress` draws a
``tqdm`` bar when the stream is a terminal and otherwise prints one plain line to it every
:func:`interval` seconds from a background thread, so a line comes even while one step (a sweep's
run) takes minutes::

    sweep: 3 of 12 runs (25%), 47 s, about 141 s left
    certify: 12 s (snap, exact proof, horizon)

and a last line when it ends, if any line was printed.  :func:`deadline` is the other half of
long work: a command's whole ``--time-budget`` (``describe``, ``verify``, ``certify``,
``analyze``).  ``quiet=True`` prints nothing, and neither does a :class:`Progress` opened while
another one of this process is showing (a search inside ``analyze`` inside ``tour``): the
outermost one speaks for the command, and its log stays one kind of line.  The
interval is ``BILINEAR_PROGRESS_INTERVAL`` seconds (default 5), read when the work starts.

>>> import io
>>> out = io.StringIO()
>>> with Progress("demo", total=4, unit="runs", stream=out, interval=0.05) as p:
...     for _ in p.wrap(range(4)):
...         time.sleep(0.03)
>>> lines = out.getvalue().splitlines()
>>> lines[-1].startswith("demo: 4 of 4 runs, done in")
True
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from contextlib import contextmanager

from .argtypes import MAX_TIME_BUDGET
from .errors import ConfigError

__all__ = ["Progress", "interval", "INTERVAL_ENV", "DEFAULT_INTERVAL", "BudgetSpent", "deadline", "DEADLINE_RETRY"]

#: The environment variable that sets the seconds between two progress lines.
INTERVAL_ENV = "BILINEAR_PROGRESS_INTERVAL"
#: Seconds between two progress lines when the variable is not set.
DEFAULT_INTERVAL = 5.0
#: How many :class:`Progress` of this process are showing now (a bar or lines); an inner one
#: opened while this is positive stays silent.
_showing = 0
_showing_lock = threading.Lock()


def interval() -> float:
    """Seconds between two progress lines: ``BILINEAR_PROGRESS_INTERVAL``, else 5.

    >>> os.environ[INTERVAL_ENV] = "0.5"; interval()
    0.5
    >>> os.environ[INTERVAL_ENV] = "never"; interval()
    Traceback (most recent call last):
    ...
    bilinear.errors.ConfigError: BILINEAR_PROGRESS_INTERVAL must be a number of seconds in (0, 3600], got 'never'
    >>> del os.environ[INTERVAL_ENV]; interval()
    5.0
    """
    text = os.environ.get(INTERVAL_ENV)
    if text is None or not text.strip():
        return DEFAULT_INTERVAL
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= 3600:
        raise ConfigError(f"{INTERVAL_ENV} must be a number of seconds in (0, 3600], got {text[:40]!r}")
    return value


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _seconds(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.1f} min"


class Progress:
    """Progress of ``total`` units (None: unknown, only the time and the phase are shown).

    Use as a context manager or call :meth:`close`; :meth:`update` counts units done,
    :meth:`wrap` counts the items of an iterable, :meth:`phase` names what is being done now,
    :meth:`set_postfix` adds ``key=value`` pairs (as tqdm's).
    """

    def __init__(self, desc: str, total: int | None = None, unit: str = "steps", initial: int = 0,
                 quiet: bool = False, stream=None, interval: float | None = None):
        self.desc, self.total, self.unit, self.done = desc, total, unit, initial
        self.stream = sys.stderr if stream is None else stream
        self._start = time.monotonic()
        self._initial = initial
        self._phase = ""
        self._postfix = ""
        self._printed = False
        self._bar = None
        self._thread = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        global _showing
        with _showing_lock:
            inner = _showing > 0
            if not (quiet or inner):
                _showing += 1
        self._counted = not (quiet or inner)
        if quiet or inner:
            self.mode = "off"
        elif _is_terminal(self.stream):
            from tqdm.auto import tqdm

            self.mode = "bar"
            self._bar = tqdm(total=total, desc=desc, initial=initial, file=self.stream, leave=False,
                             dynamic_ncols=True, unit=" " + unit)
        else:
            self.mode = "lines"
            self.every = globals()["interval"]() if interval is None else interval
            self._thread = threading.Thread(target=self._run, name=f"progress:{desc}", daemon=True)
            self._thread.start()

    # --- counting ------------------------------------------------------------------------------
    def update(self, n: int = 1) -> None:
        self.done += n
        if self._bar is not None:
            self._bar.update(n)

    def wrap(self, items):
        """Yield the items of ``items``, counting one unit after each."""
        for item in items:
            yield item
            self.update(1)

    def phase(self, text: str) -> None:
        """Name what is being done now (shown in the lines and as the bar's description)."""
        self._phase = text
        if self._bar is not None:
            self._bar.set_description(f"{self.desc}: {text}")

    def set_postfix(self, **values) -> None:
        self._postfix = ", ".join(f"{k} {v}" for k, v in values.items())
        if self._bar is not None:
            self._bar.set_postfix(**values)

    # --- the lines -----------------------------------------------------------------------------
    def line(self, final: bool = False, stopped: bool = False) -> str:
        """The progress line now (``final``: the closing one; ``stopped``: the work was stopped
        by an error, a budget or an interrupt, not done)."""
        spent = time.monotonic() - self._start
        parts = []
        if stopped:
            parts.append(f"{self.done} of {self.total} {self.unit}" if self.total is not None else "")
            parts = [p for p in parts if p] + [f"stopped after {_seconds(spent)}"]
        elif self.total is not None:
            count = f"{self.done} of {self.total} {self.unit}"
            if final:
                parts.append(f"{count}, done in {_seconds(spent)}")
            else:
                share = self.done / self.total if self.total else 1.0
                parts.append(f"{count} ({100 * share:.0f}%), {_seconds(spent)}")
                rate_done = self.done - self._initial
                if 0 < rate_done < self.total - self._initial:
                    parts.append(f"about {_seconds(spent * (self.total - self.done) / rate_done)} left")
        else:
            parts.append(f"done in {_seconds(spent)}" if final else _seconds(spent))
        if self._postfix:
            parts.append(self._postfix)
        text = f"{self.desc}: " + ", ".join(parts)
        return text + (f" ({self._phase})" if self._phase and not final else "")

    def _emit(self, text: str) -> None:
        with self._lock:
            try:
                print(text, file=self.stream, flush=True)
            except (OSError, ValueError):  # the stream is gone (closed pipe, closed file)
                self._stop.set()
                return
            self._printed = True

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self._emit(self.line())

    def close(self, stopped: bool = False) -> None:
        global _showing
        if self._counted:
            with _showing_lock:
                _showing -= 1
            self._counted = False
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
            if self._printed:
                self._emit(self.line(final=True, stopped=stopped))

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, exc_type, *exc) -> None:
        self.close(stopped=exc_type is not None)


class BudgetSpent(BaseException):
    """Raised by :func:`deadline` when a command's time budget has run out.  A BaseException (like
    KeyboardInterrupt), so that no ``except Exception`` and no search's own OutOfTime handler
    inside the work swallows it; ``args`` is ``(seconds,)``."""


#: Seconds between the repeats of a spent budget's alarm.  The first :class:`BudgetSpent` can be
#: lost: a C extension that runs Python code (numpy's random module registering its classes while
#: it is imported, for one) may clear an exception raised inside it and carry on.  The timer
#: therefore fires again every RETRY seconds until the block ends, and a block that ends normally
#: after its budget was spent raises BudgetSpent all the same.
DEADLINE_RETRY = 0.25


def _importing(frame) -> bool:
    """Whether ``frame`` or a frame below it runs Python's import machinery (a module's code while
    it is imported).  An exception raised there removes the module that was being imported but
    not what its finished submodules registered: sympy imported again after an alarm inside its
    import raised ``TypeError`` on ``Symbol ** int``, in every later use in the process."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


@contextmanager
def deadline(seconds: float | None, error: type = ConfigError):
    """Stop the work inside the block after ``seconds`` (None: never) by raising
    :class:`BudgetSpent` from a SIGALRM timer, for work whose stages do not all take a clock.
    Work inside one long C call stops when the call returns.  A first alarm that the work
    swallowed is repeated every :data:`DEADLINE_RETRY` seconds, and a block that ends after its
    budget was spent raises :class:`BudgetSpent` on leaving, so a spent budget is never reported
    as a finished job; an alarm that lands while a module is imported waits for the next repeat
    (an import cut short can leave the package broken for the rest of the process); an alarm
    that lands in a ``__del__`` or a garbage-collector callback, where
    Python can only report it, is not reported (the command's one line on stderr stays one
    line).  A deadline inside another one gives the outer one's timer back, less the time spent,
    when it ends.  Needs the main thread of a POSIX process (``error`` otherwise, when a budget is
    given, and for a budget that is not a positive number or is over
    :data:`~bilinear.argtypes.MAX_TIME_BUDGET`, about 31 years: the timer cannot be armed for
    much more, and a budget it cannot keep is refused, not dropped).

    >>> try:
    ...     with deadline(0.05):
    ...         time.sleep(5)
    ... except BudgetSpent as spent:
    ...     print(round(spent.args[0], 2))
    0.05
    """
    if seconds is None:
        yield
        return
    import signal

    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        raise error("a time budget needs the main thread of a POSIX process (SIGALRM)")
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
        raise error(f"time_budget must be a positive number of seconds, got {seconds!r}")
    if seconds > MAX_TIME_BUDGET:  # setitimer overflows past about 9.2e9 s (int64 nanoseconds)
        # %g of an int past a float's range overflows
        shown = f"{seconds:g}" if isinstance(seconds, float) or seconds < 1e308 else "an integer over 1e308"
        raise error(f"time_budget must be at most {MAX_TIME_BUDGET:g} s (about 31 years), got {shown}")
    fired = closing = False

    def spent(signum, frame):
        nonlocal fired
        if closing:  # delivered while the block's end puts everything back: the end decides
            return
        fired = True
        if _importing(frame):  # raised inside an import, it would leave a package half made for the process:
            return  # wait for the alarm's repeat (every DEADLINE_RETRY seconds); the block's end raises all the same
        raise BudgetSpent(seconds)

    previous_hook = sys.unraisablehook

    def unraisable(report):  # an alarm inside a __del__ or a gc callback: not a traceback on stderr
        if not isinstance(report.exc_value, BudgetSpent):
            previous_hook(report)

    old = signal.signal(signal.SIGALRM, spent)
    outer_left, outer_every = signal.getitimer(signal.ITIMER_REAL)  # (0, 0) unless nested
    started = time.monotonic()
    sys.unraisablehook = unraisable
    try:  # armed inside: an alarm due at once (a budget of 1e-6 s) is raised here, and put back below
        signal.setitimer(signal.ITIMER_REAL, float(seconds), DEADLINE_RETRY)
        yield
    finally:
        closing = True
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        sys.unraisablehook = previous_hook
        if outer_left > 0:  # the outer deadline's timer, less this block's time (due now: 1 us)
            signal.setitimer(signal.ITIMER_REAL, max(outer_left - (time.monotonic() - started), 1e-6), outer_every)
    if fired:  # the block ended normally though its alarm went off: the exception was swallowed
        raise BudgetSpent(seconds)
