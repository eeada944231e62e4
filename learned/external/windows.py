"""Names of the windows of symbols a layer reads (a short convolution's, RWKV-7's token shift):
distinct windows get distinct names whatever the symbols' names are (docs/your-model.md)."""

from __future__ import annotations

import json

__all__ = ["WINDOW_SEPARATOR", "window_name"]

#: Between the symbols of a window's name (the spectra's words are written the same way: ``A(2·0)``).
WINDOW_SEPARATOR = "·"


def window_name(window, names) -> str:
    """The name of a window (symbol indices, oldest first): the symbols' ``names`` joined by
    :data:`WINDOW_SEPARATOR`; a name holding the separator or starting with ``"`` is written as a JSON
    string, so distinct windows get distinct names whatever the names are (a symbol name may be any
    printable text).

    >>> window_name((1, 10), [str(i) for i in range(12)]), window_name((11, 0), [str(i) for i in range(12)])
    ('1·10', '11·0')
    >>> window_name((0, 1), ["a·b", "c"])
    '"a·b"·c'
    """
    def part(name: str) -> str:
        if WINDOW_SEPARATOR in name or name.startswith('"'):
            return json.dumps(name, ensure_ascii=False)
        return name

    return WINDOW_SEPARATOR.join(part(str(names[s])) for s in window)
