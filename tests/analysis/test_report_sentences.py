"""Every sentence template of the spectra (analysis/spectrum.py), the commutators
(analysis/commutators.py) and the certificate line (analysis/report.py ``certificate_line``),
each on a network where the sentence would be false: the test shows the code does not print it
there and prints the right sentence, whose claim is checked here independently (numpy powers and
norms, a plain float64 loop), not with the code under test.

Templates and their tests (the table the issue asks for):

==============================================================  ====================================
template                                                        test (false there -> not printed)
==============================================================  ====================================
spectrum "is zero", "is nilpotent", "has no finite order ...",  test_each_spectrum_sentence_only_
"acts as the identity", "acts as a reflection (fixing ...)",    where_its_claim_holds (12 matrices,
"acts as -I", "acts as an involution negating ...", "acts as    each template printed for its own
a rotation of order k ... fixing ...", "has order p up to       matrix only, its numbers checked)
scale: a rotation ...; negation ...", "is idempotent ...",
"is eventually idempotent ...", "has index i and period p ..."
headline "on the k-dimensional visited span ... (order o,       test_visited_span_headlines
residual r); on the full ...", "...; on the visited span it
... not of finite order", "... closest to order o ... above"
commutators "all transition matrices commute (exactly|within)"  test_commutator_sentences
"the transition matrices do not commute: ||[A_a, A_b]|| ..."
"... commute on the k-dimensional visited span ...", "... do
not commute on the k-dimensional visited span ..."
certificate "correct for every word of every length (proved)"   test_certificate_line_sentences
"every word up to length L certified correct", "no length
certified", "fails at length N on W", "no failing word found
up to length S", "no word fails (no search run)" (every length
certified), "snap proved (minimum margin m)", "no snap
proved"; the same in ``NetworkCertificate.to_text`` (printed
"no certified length": tests/analysis/test_certify.py, the
noisy one-hot flipflop:3)
==============================================================  ====================================
"""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest
from plain_eval import float64_margins

from bilinear.analysis import commutators
from bilinear.analysis.report import certificate_line
from bilinear.analysis.spectrum import matrix_spectrum, spectrum
from bilinear.automata import Automaton, from_spec
from bilinear.constructions import build
from bilinear.constructions import drift
from bilinear.constructions import Weights


def rot(theta: float) -> np.ndarray:
    return np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])


def blocks(*parts) -> np.ndarray:
    n = sum(np.atleast_2d(p).shape[0] for p in parts)
    M = np.zeros((n, n))
    i = 0
    for p in parts:
        p = np.atleast_2d(p)
        M[i:i + p.shape[0], i:i + p.shape[0]] = p
        i += p.shape[0]
    return M


def structure(M: np.ndarray, top: int = 24):
    """Independently: ``(index, period)`` with M^(i+p) = c M^i (c > 0), the smallest i then p,
    by numpy powers; None when there is none up to ``top``."""
    powers = [np.eye(M.shape[0])]
    for _ in range(2 * top):
        powers.append(powers[-1] @ M)

    def prop(X, Y):  # X = c Y for some c > 0 (or both zero)
        ny = np.linalg.norm(Y)
        if ny < 1e-12:
            return np.linalg.norm(X) < 1e-12
        c = float(np.sum(X * Y)) / ny**2
        return c > 0 and np.linalg.norm(X - c * Y) <= 1e-8 * max(np.linalg.norm(X), 1e-300)

    for i in range(top):
        for p in range(1, top):
            if prop(powers[i + p], powers[i]):
                return i, p
    return None


# name -> (matrix, the template's regex, the independent facts the sentence states)
SPECTRA = {
    "zero": (np.zeros((3, 3)), r"^is zero \(sends every hidden state to 0\)$"),
    "nilpotent": (np.diag([1.0, 1.0], 1), r"^is nilpotent \(every eigenvalue is 0\)$"),
    "no order": (blocks(rot(1.0), 0.5), r"^has no finite order up to scale \(powers up to 12 checked"),
    "identity": (2.0 * np.eye(3), r"^acts as the identity \(up to a positive scale\)$"),
    "reflection": (np.diag([1.0, 1.0, -1.0]), r"^acts as a reflection \(fixing a 2-dimensional subspace\)$"),
    "minus identity": (-np.eye(3), r"^acts as -I \(negates every hidden state\)$"),
    "involution": (np.diag([1.0, -1.0, -1.0]), r"^acts as an involution negating a 2-dimensional subspace$"),
    "rotation": (blocks(rot(2 * math.pi / 5), 1.0),
                 r"^acts as a rotation of order 5 on a 2-dimensional subspace, fixing a 1-dimensional subspace$"),
    "mixed": (blocks(rot(2 * math.pi / 3), -1.0),
              r"^has order 6 up to scale: a rotation of order 3 on a 2-dimensional subspace; negation of a "
              r"1-dimensional subspace$"),
    "idempotent": (np.diag([1.0, 1.0, 0.0]), r"^is idempotent up to scale \(a projection of rank 2\)$"),
    "eventually idempotent": (blocks(1.0, np.diag([1.0], 1)),
                              r"^is eventually idempotent up to scale \(A\^3 = c·A\^2\), rank 2$"),
    "index and period": (blocks(-1.0, np.diag([1.0], 1)),
                         r"^has index 2 and period 2 up to scale \(A\^4 = c·A\^2\), rank 2$"),
}


def _facts(M: np.ndarray) -> dict:
    """What each sentence claims, decided here with numpy."""
    st = structure(M)
    ev = np.linalg.eigvals(M)
    rank = int(np.linalg.matrix_rank(M, tol=1e-9))
    return {"zero": not M.any(), "nilpotent": bool(M.any()) and np.allclose(np.linalg.matrix_power(M, M.shape[0]), 0),
            "no order": st is None and rank > 0 and not np.allclose(np.linalg.matrix_power(M, M.shape[0]), 0),
            "identity": st == (0, 1), "order": None if st is None or st[0] else st[1], "index": None if st is None else st[0],
            "period": None if st is None else st[1], "rank": rank,
            "minus": int(np.sum(np.abs(ev + 1) < 1e-9)), "plus": int(np.sum(np.abs(ev - 1) < 1e-9))}


@pytest.mark.parametrize("name", list(SPECTRA))
def test_each_spectrum_sentence_only_where_its_claim_holds(name):
    M, pattern = SPECTRA[name]
    reading = matrix_spectrum(M, "A").reading
    assert re.search(pattern, reading), reading
    for other, (_, other_pattern) in SPECTRA.items():  # every other sentence is false here: not printed
        if other != name:
            assert not re.search(other_pattern, reading), (other, reading)
    f = _facts(M)  # and this sentence's claims hold, by numpy
    claims = {
        "zero": f["zero"], "nilpotent": f["nilpotent"], "no order": f["no order"], "identity": f["identity"],
        "reflection": f["order"] == 2 and f["minus"] == 1 and f["plus"] == 2,
        "minus identity": f["order"] == 2 and f["minus"] == 3,
        "involution": f["order"] == 2 and f["minus"] == 2,
        "rotation": f["order"] == 5 and f["plus"] == 1,
        "mixed": f["order"] == 6 and f["minus"] == 1,
        "idempotent": (f["index"], f["period"], f["rank"]) == (1, 1, 2),
        "eventually idempotent": (f["index"], f["period"], f["rank"]) == (2, 1, 2),
        "index and period": (f["index"], f["period"], f["rank"]) == (2, 2, 2),
    }
    assert claims[name], (name, f)


def _weights(A, h0, R) -> Weights:
    return Weights("full", np.asarray(A, dtype=float), np.asarray(h0, dtype=float), np.asarray(R, dtype=float))


def test_visited_span_headlines():
    """The three headline sentences of a float symbol, each where the other two are false."""
    # (1) order 5 on the visited plane, no finite order on the whole space (a 0.5 direction)
    w1 = _weights([blocks(rot(2 * math.pi / 5), 0.5)], [1.0, 0.0, 0.0], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    # (2) a projection on the visited plane (a swap keeps both directions visited)
    w2 = _weights([blocks(np.array([[1.0, 1.0], [0.0, 0.0]]), 0.5), blocks(np.array([[0.0, 1.0], [1.0, 0.0]]), 0.5)],
                  [1.0, 1.0, 0.0],
                  [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    # (3) a rotation by 1 rad: no order anywhere; the nearest is named with its residual
    w3 = _weights([blocks(rot(1.0), 0.5)], [1.0, 0.0, 0.0], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    heads = [spectrum(w, word_length=1).symbols[0].headline for w in (w1, w2, w3)]
    one = r"^on the 2-dimensional visited span acts as a rotation of order 5 .*\(order 5, residual [^)]*\); on the full 3"
    two = r"; on the 2-dimensional visited span it is idempotent .*not of finite order$"
    three = r"; on the 2-dimensional visited span it is closest to order \d+ \(residual [^,]*, above 0.05\)$"
    for i, h in enumerate(heads):
        for j, pat in enumerate((one, two, three)):
            assert bool(re.search(pat, h)) == (i == j), (i, j, h)
    # the claims, by numpy on the plane the states visit (the first two coordinates)
    P1, P2, P3 = (w.float_arrays()[0][0][:2, :2] for w in (w1, w2, w3))
    assert structure(P1) == (0, 5) and structure(blocks(rot(2 * math.pi / 5), 0.5)) is None
    assert structure(P2) == (1, 1)
    assert structure(P3) is None
    k = int(re.search(r"closest to order (\d+)", heads[2]).group(1))
    residual = [np.linalg.norm(np.linalg.matrix_power(P3, j) - np.eye(2)) for j in range(1, 13)]
    assert k == 1 + int(np.argmin(np.array(residual) + 1e-9 * np.arange(12)))  # the nearest order up to 12


def test_commutator_sentences():
    """Exact: commute (cyclic:5) / do not commute (dihedral:4, its norm checked by numpy); float on
    the visited span: commute there (non-commuting directions that die out) / do not commute
    (D_4 drifted, full)."""
    c5 = commutators(build("cyclic:5", "rotation2d"), word_length=1)
    d4 = commutators(build("dihedral:4", "block:2"), word_length=1)
    assert re.match(r"all transition matrices commute \(exactly\); largest scale-free norm 0$", c5.reading), c5.reading
    assert "do not commute" not in c5.reading
    m = re.match(r"the transition matrices do not commute: \|\|\[A_(\w+), A_(\w+)\]\|\| / .* = ([0-9.]+)$", d4.reading)
    assert m and "all transition matrices commute" not in d4.reading, d4.reading
    A = build("dihedral:4", "block:2").float_arrays()[0]
    norms = [np.linalg.norm(A[a] @ A[b] - A[b] @ A[a]) / (np.linalg.norm(A[a]) * np.linalg.norm(A[b]))
             for a, b in itertools.combinations(range(len(A)), 2)]
    assert max(norms) > 0.1 and abs(float(m.group(3)) - max(norms)) < 5e-3 * max(norms)  # 3 digits
    # float, visited span
    A = np.zeros((2, 4, 4))
    A[0, :2, :2], A[1, :2, :2] = np.diag([1.0, -1.0]), np.diag([-1.0, 1.0])
    A[0, 2:, 2:], A[1, 2:, 2:] = 0.1 * np.array([[0.0, 1.0], [1.0, 0.0]]), 0.1 * np.diag([1.0, -1.0])
    on_span = commutators(Weights("block:2", A, [1.0, 1.0, 1.0, 1.0], [[1.0, 0, 0, 0]]), word_length=1)
    assert re.match(r"the transition matrices commute on the 2-dimensional visited span", on_span.reading)
    assert "do not commute on the" not in on_span.reading
    assert np.linalg.norm(A[0] @ A[1] - A[1] @ A[0]) > 1e-3  # they do not commute on the whole space
    assert np.linalg.norm(A[0][:2, :2] @ A[1][:2, :2] - A[1][:2, :2] @ A[0][:2, :2]) == 0  # on the plane they do
    d4f = commutators(drift(build("dihedral:4", "full"), 0.001, hidden=4), word_length=1)
    assert re.match(r"the transition matrices do not commute on the 2-dimensional visited span", d4f.reading), d4f.reading
    assert "commute on the 2-dimensional visited span (largest" not in d4f.reading.replace("do not commute", "")


def _plain_first_failure(w, a, length: int, words: np.ndarray) -> int | None:
    """The first length (<= length) at which any of ``words`` is labelled wrongly (the float64
    loop of tests/plain_eval.py)."""
    A, h0, R = w.float_arrays()
    bad = np.nonzero((float64_margins(A, h0, R, a, words[:, :length]) <= 0).any(axis=0))[0]
    return int(bad[0]) if len(bad) else None


def test_certificate_line_sentences():
    """Three networks, each making the others' sentences false: an exact construction in floats
    (proved for every length), a drifting rotation (a certified length, then a failure the line
    names and a plain loop confirms), and a network whose readout ranks the wrong class at the
    start (no length certified; fails at 0; no snap proved)."""
    from bilinear.analysis.certify import certify_network

    a = Automaton([[0, 0], [1, 1]], labels=[0, 1], name="two resets")  # every symbol contracts
    proved = certify_network(build(a, "full").to_float(), a, search_length=200)
    c5 = from_spec("cyclic:5")
    drifting = drift(build("cyclic:5", "rotation2d"), 0.01, hidden=8)
    horizon = certify_network(drifting, c5, search_length=300, random_words=32, shorten_seconds=0.5)
    A, h0, R = build("cyclic:5", "rotation2d").float_arrays()
    wrong = Weights("rotation2d", A, h0, -R)  # every label ranked last
    none = certify_network(wrong, c5, search_length=50, random_words=8, shorten_seconds=0.2)
    lines = {k: certificate_line(c) for k, c in (("proved", proved), ("horizon", horizon), ("none", none))}
    pats = {
        "every": r"correct for every word of every length \(proved, float64 evaluation\)",
        "up to": r"every word up to length (\d+) certified correct \(float64 evaluation\)",
        "no length": r"no length certified",
        "fails": r"fails at length (\d+) on ",
        "no failure": r"no failing word found up to length (\d+)",
        "no search": r"no word fails \(no search run\)",
        "snap": r"snap proved \(minimum margin [0-9.e-]+\)$",
        "no snap": r"no snap proved$",
    }
    want = {"proved": {"every", "no search", "snap"}, "horizon": {"up to", "fails", "snap"},
            "none": {"no length", "fails", "no snap"}}
    for k, line in lines.items():
        assert {p for p, pat in pats.items() if re.search(pat, line)} == want[k], line
    # the claims, checked here: no failure of the proved network on every word up to length 10
    words = np.array(list(itertools.product(range(a.n_symbols), repeat=10)))
    assert _plain_first_failure(build(a, "full").to_float(), a, 10, words) is None
    L = int(re.search(pats["up to"], lines["horizon"]).group(1))
    n = int(re.search(pats["fails"], lines["horizon"]).group(1))
    assert L < n and _plain_first_failure(drifting, c5, n, np.array([horizon.failing])) == n
    assert _plain_first_failure(wrong, c5, 0, np.zeros((1, 1), dtype=np.int64)) == 0  # wrong on the empty word
    assert none.proof is None and horizon.proof is not None and horizon.proof.status == "proved"
    # the same sentences in the certificate's own text (bilinear certify)
    text_pats = {
        "every": r"float network \(float64 evaluation, rounding charged\): correct for every word of every length \(proved",
        "up to": r"correct for every word up to length \d+ \(certified, [\w-]+ bound",
        "no length": r"no certified length \(",
        "fails": r"float network: fails at length \d+ on .* \(float64 evaluation; ",
        "no failure": r"float network: no failing word found up to length \d+ \(directed search in float64\)",
        "no search": r"float network: no word fails \(every length is certified above\); no failing-word search run",
        "snap": r"snap proved for every length: \d+ pairs, minimum margin",
        "no snap": r"snap: no snapped network was proved",
    }
    want["none"] = {"fails", "no snap"}  # without a proved snap the text has no horizon line at all
    want["proved"] = {"every", "no search", "snap"}  # every length certified: no search was run, none claimed
    for k, c in (("proved", proved), ("horizon", horizon), ("none", none)):
        text = c.to_text()
        assert {p for p, pat in text_pats.items() if re.search(pat, text)} == want[k], text
        assert text.splitlines()[0].endswith(": " + {"proved": "proved", "horizon": "snapped", "none": "failed"}[k])
