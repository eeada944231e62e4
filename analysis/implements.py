"""One plain-language line per network: what it implements, or why it does not.

:func:`implements_line` reads what the analysis measured (the spectra on the visited span, the
extracted automaton, the accuracy by length) and, for a network that fails, compares the extracted
automaton with the target's quotients and asks for the impossibility certificate of the variant
(:func:`bilinear.constructions.impossible.certificates.certify`)::

    implements Z_5 as transitions of order 1, 5 on a 2-dimensional visited span; phase error 0.002 rad/step
    tracks only the Z_2 quotient of D_3 (2 states); no rotation2d network can implement D_3 (Theorem 6: every
    rotation2d network labels r·s and s·r alike; D_3 does not)

A verdict never contradicts the measured accuracy: a network whose extracted automaton is right
but which errs at long lengths is said to implement the target *up to* its first failing length.

>>> from bilinear.automata import from_spec
>>> algebra_name(from_spec("dihedral:3")), algebra_name(from_spec("cyclic:5")), algebra_name(from_spec("parity"))
('D_3', 'Z_5', 'Z_2')
"""

from __future__ import annotations

import cmath
import math
import re

import numpy as np

__all__ = ["implements_line", "algebra_name", "quotient_map", "phase_error", "transitions_text", "mechanism_text"]


def algebra_name(automaton) -> str:
    """``Z_n`` or ``D_n`` when the automaton is the Cayley automaton of a cyclic or dihedral group
    (recognised from the table), else the monoid's classification (or the automaton's name)."""
    from bilinear.automata.groups import RegularGroup, cyclic_presentation, dihedral_presentation
    from bilinear.automata.monoid import transformation_monoid
    from bilinear.errors import BilinearError

    try:
        group = RegularGroup.of(automaton)
        cyc = cyclic_presentation(group)
        if cyc is not None:
            return f"Z_{cyc[0]}"
        dih = dihedral_presentation(group)
        if dih is not None:
            return f"D_{dih[0]}"
        return f"{automaton.name or 'the automaton'} ({transformation_monoid(automaton).classification})"
    except BilinearError:
        return automaton.name or "the automaton"


def quotient_map(target, image) -> dict[int, int] | None:
    """The map from the target's reachable states onto ``image``'s states that commutes with every
    symbol and sends start to start, when there is one (``image`` is then a quotient of the
    target: it tracks a coarser state), else None.  The map is forced along the breadth-first
    tree of :func:`~bilinear.automata.minimize.access_words` (state ``q`` reached by ``w`` goes
    to ``image.start · w``) and then checked on every transition.

    >>> from bilinear.automata import Automaton
    >>> quotient_map(Automaton([[1, 2, 3, 0]]), Automaton([[1, 0]]))     # Z_4 onto Z_2
    {0: 0, 1: 1, 2: 0, 3: 1}
    >>> quotient_map(Automaton([[1, 2, 0]]), Automaton([[1, 0]])) is None  # Z_3 has no Z_2 quotient
    True
    """
    from bilinear.automata.minimize import access_words

    if target.n_symbols != image.n_symbols:
        return None
    reach = access_words(target)
    states, parent, via = reach.states.tolist(), reach.parent.tolist(), reach.via.tolist()
    phi = np.empty(target.n_states, dtype=np.int64)
    phi[states[0]] = int(image.start)
    for i in range(1, len(states)):  # parents precede children
        phi[states[i]] = image.delta[via[i], phi[states[parent[i]]]]
    q = reach.states
    if not (phi[target.delta[:, q]] == image.delta[:, phi[q]]).all():  # phi(q·a) = phi(q)·a
        return None
    return {s: int(phi[s]) for s in states}


def phase_error(spectrum, automaton=None) -> float | None:
    """The largest angle (rad) between a unit-modulus eigenvalue of a symbol (on the visited span
    where it was measured there) and the nearest root of unity of the order of that symbol's
    permutation in ``automaton`` (every such eigenvalue, whether or not the matrix has a finite
    order: a rotation off by 5e-4 rad has none); without an automaton, the order the matrix has
    (None: no such eigenvalue)."""
    if automaton is not None:
        return _phase_error_against(spectrum, automaton)
    worst = None
    for m in spectrum.symbols:
        vs = m.visited if m.visited is not None else (m if m.order is not None else None)
        k = m.visited_order if m.visited is not None else m.order
        if vs is None or not k or not m.holds_on_span and m.visited is not None:
            continue
        worst = _worst_phase(vs.normalised, k, worst)
    return worst


def mechanism_text(spectrum, automaton, variant: str = "") -> str:
    """``; mechanism: symbol 1 is a contracting rotation of order 3 and modulus 0.7 (...)``: for
    each symbol that permutes the automaton's states with order k > 1, its eigenvalue nearest a
    primitive k-th root of unity (normalised by the spectral radius), named where it is off the
    unit circle: a contracting rotation of order k and modulus r (its order-k signal decays as
    r^n against the dominant direction), for k = 2 a real eigenvalue in (-1, 0] (a Householder
    reflection's is 1 - beta, so beta != 2), or none near such a root.  Empty when every such
    eigenvalue is on the unit circle, or nothing was measured."""
    from bilinear.constructions import parse_variant

    if spectrum is None:
        return ""
    parts = []
    for s, m in enumerate(spectrum.symbols):
        k = _symbol_period(automaton, s)
        zs = [z for z in m.normalised if abs(z) > 1e-12]
        if not k or k == 1 or not zs:
            continue
        roots = [cmath.exp(2j * math.pi * j / k) for j in range(1, k) if math.gcd(j, k) == 1]
        z = min(zs, key=lambda z: min(abs(cmath.phase(z / r)) for r in roots))
        angle = min(abs(cmath.phase(z / r)) for r in roots)
        name = automaton.symbols[s]
        if angle > math.pi / (2 * k):
            parts.append(f"symbol {name} has no eigenvalue near a primitive root of unity of order {k}")
        elif abs(z) < 0.99 and k == 2:
            reflections = bool(variant) and parse_variant(variant).info.factor_names == ("V", "beta")  # householder:K
            beta = f" (a reflection with beta = {1 - z.real:.3g}, not 2)" if reflections else ""
            parts.append(f"symbol {name}'s eigenvalue {z.real:.3g} is off the unit circle{beta}: its sign flips "
                         f"decay as {abs(z):.2g}^n")
        elif abs(z) < 0.99:
            parts.append(f"symbol {name} is a contracting rotation of order {k} and modulus {abs(z):.2g}: its order-{k} "
                         f"signal decays as {abs(z):.2g}^n against the dominant direction (eigenvalues off the unit circle)")
    return "; mechanism: " + "; ".join(parts) if parts else ""


def _symbol_period(automaton, s: int) -> int | None:
    """The order of symbol ``s``'s transformation when it is a permutation of the states, else None."""
    f = np.asarray(automaton.delta[s])
    if len(set(f.tolist())) != len(f):
        return None
    g, k = f.copy(), 1
    while not (g == np.arange(len(f))).all():
        g, k = f[g], k + 1
    return k


def _worst_phase(values, k: int, worst: float | None) -> float | None:
    """``worst`` raised to the largest angle between a unit-modulus value (within 0.05) and its
    nearest k-th root of unity."""
    for z in values:
        if abs(abs(z) - 1) > 0.05:
            continue
        j = round(cmath.phase(z) * k / (2 * math.pi))
        err = abs(cmath.phase(z * cmath.exp(-2j * math.pi * j / k)))
        worst = err if worst is None else max(worst, err)
    return worst


def _phase_error_against(spectrum, automaton) -> float | None:
    worst = None
    for s, m in enumerate(spectrum.symbols):
        k = _symbol_period(automaton, s)
        vs = m.visited if m.visited is not None else m
        if not k or vs is None:
            continue
        worst = _worst_phase(vs.normalised, k, worst)
    return worst


def _orders(spectrum) -> list[int]:
    out = set()
    for m in spectrum.symbols:
        k = m.visited_order if m.holds_on_span else m.order
        if k:
            out.add(k)
    return sorted(out)


def _kind(m) -> str:
    """What one symbol's transition is, on the visited span where it holds there: ``order k``,
    ``idempotent up to scale`` (A^2 = c·A), ``A^(i+p) = c·A^i`` or ``of no finite order up to N``."""
    if m.holds_on_span and m.visited_order:
        return f"order {m.visited_order}"
    if m.order:
        return f"order {m.order}"
    src = m.visited if m.visited is not None and m.visited.index is not None else m
    if src.index is not None and src.period is not None:
        if (src.index, src.period) == (1, 1):
            return "idempotent up to scale"
        return f"A^{src.index + src.period} = c·A^{src.index}"
    return "of no finite order"


def transitions_text(spectrum) -> str:
    """``transitions of order 1, 5`` when every symbol has a finite order, else every kind with
    its symbols: ``transitions of order 1 (r) and idempotent up to scale (w0, w1)``.

    Never an empty list: a symbol whose transition has no order is named as such."""
    kinds: dict[str, list[str]] = {}
    for m in spectrum.symbols:
        kinds.setdefault(_kind(m), []).append(m.name.removeprefix("A_"))
    if kinds and all(k.startswith("order ") for k in kinds):
        return "transitions of order " + ", ".join(map(str, _orders(spectrum)))
    ordered = sorted(kinds, key=lambda k: (0, int(k.split()[1])) if k.startswith("order ") else (1, k))
    parts = [f"{'of ' if k.startswith('order ') else ''}{k} ({', '.join(kinds[k])})" for k in ordered]
    if not parts:
        return "transitions"
    return "transitions " + (parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1])


def _certificate_text(automaton, variant: str, claim: str) -> str | None:
    from bilinear.constructions.impossible.certificates import certify
    from bilinear.constructions.horizon.horizon import compress_word
    from bilinear.errors import BilinearError

    try:
        cert = certify(automaton, variant)
    except BilinearError:
        return None
    if cert is None:
        return None
    theorem = re.search(r"Theorem \d+", cert.theorem)
    head = f"{theorem.group(0)}: " if theorem else ""
    if cert.kind == "commutation":  # Theorem 6: the two witnesses reach the same hidden state
        w1, w2 = ("·".join(automaton.symbols[a] for a in w) or "ε" for w in cert.witnesses)
        return (f"no {variant} network {claim} ({head}every {variant} network labels {w1} and {w2} alike; "
                f"{algebra_name(automaton)} does not)")
    # Theorems 7 and 8 speak of the sequence n -> label of u g^n v *eventually*: no two given
    # words are labelled alike by every network
    w = dict(cert.indices)
    u, g, v = (compress_word(automaton, w[k]) if w[k] else "ε" for k in ("u", "g", "v"))
    shape = "2-periodic" if cert.kind == "period" else "constant"
    cycle = " ".join(cert.label_cycle or ())
    word = " ".join(x for x in (u, f"({g})^n" if len(w["g"]) > 1 else f"{g}^n", v) if x != "ε")
    return (f"no {variant} network {claim} ({head}for every {variant} network the labels of {word} are "
            f"eventually {shape} in n; {algebra_name(automaton)}'s repeat {cycle} with period "
            f"{cert.label_period})")


def _own_error(weights, automaton, curve=None) -> str:
    """``; the network itself first errs on 1^6 (automaton 0, network 2)``: a shortest word on
    which the network (not its extraction) is wrong, found by running every short word; when
    none is wrong but the random words of the accuracy curve are, that first failing length."""
    if weights is None:
        return ""
    from .lengths import MAX_ERROR_SEARCH_WORDS, shortest_error

    err = shortest_error(weights, automaton)
    if err is None and curve is not None and curve.first_failure is not None:
        return (f"; the network itself is right on every short word (all words, {MAX_ERROR_SEARCH_WORDS} at most) "
                f"but errs on random words from length {curve.first_failure}")
    if err is None:
        return (f"; the network itself is right on every word it was run on (all short words, "
                f"{MAX_ERROR_SEARCH_WORDS} at most, and the random words of the accuracy curve)")
    return f"; the network itself first errs on {err.text} ({err.labels_text()})"


def _difference(automaton, extraction, weights) -> str:
    """``, first on 1111 (automaton 1, extraction 0, network 1)``: the word on which the extracted
    automaton differs from the target, re-run through the network itself."""
    word = extraction.distinguishing_word
    if word is None:
        return ""
    prefix = tuple(extraction.start_word)
    expected = automaton.classes[automaton.label((*prefix, *word))]
    got = extraction.minimal.classes[extraction.minimal.label(word)]
    text = f", first on {extraction.distinguishing_text} (automaton {expected}, extraction {got}"
    if weights is not None:
        from .lengths import network_label

        net = network_label(weights, automaton, word, prefix=prefix)
        text += f", network {net.network if net.network is not None else '-'}"
    return text + (")" if not prefix else f"; after the burn-in prefix of {len(prefix)} symbols)")


def _failure_line(automaton, variant: str, extraction, curve, weights=None, spectrum=None) -> str:
    target = algebra_name(automaton)
    cert = _certificate_text(automaton, variant, f"can implement {target}")
    tail = f"; {cert}" if cert else ""
    if extraction is None or extraction.minimal is None or extraction.isomorphic:
        if extraction is None or extraction.isomorphic:
            # an extraction that looks like the target is not evidence here: what is measured is
            # the network's own error (and the theorem, when one excludes the target)
            why = ("first error on random words at length "
                   f"{curve.first_failure}" if curve is not None and curve.first_failure is not None
                   else "it errs")
            if extraction is not None and curve is not None and curve.first_failure is not None:
                why += (f" (its hidden states, clustered, mimic {target} on the sampled words: "
                        f"{'not separated' if not extraction.separated else 'separated'})")
        else:
            why = f"its hidden states form no small automaton ({extraction.status})"
        return (f"does not implement {target}: {why}{_own_error(weights, automaton, curve)}"
                f"{mechanism_text(spectrum, automaton, variant)}{tail}")
    image = extraction.minimal
    if quotient_map(automaton, image) is not None and image.n_states < automaton.n_states:
        # the certificate proves the target impossible, not that no larger quotient is possible
        prefix = getattr(extraction, "start_word", ())
        start = f" after a burn-in of {len(prefix)} symbols" if prefix else ""
        return (f"tracks only the {algebra_name(image)} quotient of {target} ({image.n_states} states){start}"
                f"{_own_error(weights, automaton, curve)}{mechanism_text(spectrum, automaton, variant)}{tail}")
    diff = _difference(automaton, extraction, weights)
    return (f"does not implement {target}: its extracted automaton ({image.n_states} states) differs{diff}"
            f"{_own_error(weights, automaton, curve)}{mechanism_text(spectrum, automaton, variant)}{tail}")


def implements_line(automaton, variant: str, spectrum, extraction=None, curve=None, exact: bool = False,
                    weights=None, failing=None) -> str:
    """The one line (module docstring); ``curve`` is a
    :class:`~bilinear.analysis.lengths.LengthCurve` or None; ``weights`` (the network, or a
    tracker) re-runs every word the line names, so each is printed with the network's own label
    beside the automaton's.  ``failing`` is a word the network was found to fail on elsewhere
    (the certificate's directed search, :func:`bilinear.analysis.certify.certify_network`): a line
    that says "implements" names it when it is shorter than the random words' first failure and
    the network, re-run, errs on it, so the verdict never reads as right where the same report
    shows a failure."""
    target = algebra_name(automaton)
    if extraction is None and curve is None:
        return ""  # nothing measured says what the network does
    right = (extraction.isomorphic is True if extraction is not None
             else curve.first_failure is None)
    if right and _certificate_text(automaton, variant, "") is not None:
        right = False  # no network of this variant implements the target (a theorem): never say it does
    unproved = ""
    if exact and right and weights is not None:
        # "exactly" only with a proof: the directed words in exact arithmetic, then the prover
        verdict, said = _exact_verdict(weights, automaton, target)
        if verdict == "proved" and (curve is None or curve.first_failure is None):
            return f"implements {target} exactly ({said}), as {transitions_text(spectrum)} (exact weights)"
        if verdict == "counterexample":
            return f"does not implement {target}: {said}"
        unproved = f"; not proved ({said})"
    if not right:
        return _failure_line(automaton, variant, extraction, curve, weights, spectrum)
    dims = {m.visited_dim for m in spectrum.symbols if m.visited_dim}
    where = f" on a {max(dims)}-dimensional visited span" if dims else ""
    text = f"implements {target} as {transitions_text(spectrum)}{where}"
    err = phase_error(spectrum, automaton)
    if err is not None:
        text += f"; phase error {err:.2g} rad/step"
    text += _failing_text(automaton, weights, failing, curve)
    if curve is not None and curve.first_failure is not None:
        text += (f"; on random words right up to length {curve.first_failure - 1} only (normalised "
                 f"accuracy {curve.at(curve.max_length):.2f} at {curve.max_length})")
    elif curve is not None:
        text += f"; no failure up to length {curve.max_length} on the random words run"
    return text + unproved


def _failing_text(automaton, weights, failing, curve) -> str:
    """``; yet it errs at length 67 on 0^67 (automaton 0, network 1; the certificate's failing
    word)`` for a word ``failing`` shorter than the curve's first failure on which the network,
    re-run, errs; else empty (no such word, or the network is right on it: never a word the line
    cannot show failing).  Not "right up to length 66": the search found this word, it did not
    rule out a shorter one."""
    if failing is None or weights is None or (curve is not None and curve.first_failure is not None
                                              and curve.first_failure <= len(failing)):
        return ""
    from .lengths import network_label

    word = network_label(weights, automaton, tuple(failing))
    if word.right is not False:
        return ""
    return f"; yet it errs at length {len(word.word)} on {word.text} ({word.labels_text()}; the certificate's failing word)"


#: Seconds the exact proof of exact weights may take in an analysis (``verify`` takes more).
PROVE_SECONDS = 5.0


def _exact_verdict(weights, automaton, target: str) -> tuple[str, str]:
    """``(status, words)`` for exact weights: the directed words that fail in float64 run in exact
    arithmetic, then the exact proof within :data:`PROVE_SECONDS`: ``"proved"``,
    ``"counterexample"`` (the words name the word and both labels) or ``"open"``."""
    from bilinear.automata.words import compress
    from bilinear.constructions.horizon.exactwords import exact_failure
    from bilinear.constructions.proof.stackprover import prove_network
    from bilinear.constructions.values.weights import Weights

    if isinstance(weights, Weights):
        found = exact_failure(weights, automaton, 500, PROVE_SECONDS / 2)
        if found is not None:
            got = "a tie" if found.got is None else automaton.classes[found.got]
            return "counterexample", (
                f"its exact network errs on {compress(found.word, automaton)} (automaton "
                f"{automaton.classes[automaton.label(found.word)]}, network {got}; a directed word run in exact "
                "arithmetic)")
    result = prove_network(weights, automaton, time_budget=PROVE_SECONDS)
    if result.status == "proved":
        return "proved", f"proved for every word: {result.states_explored} reachable (state, direction) pairs"
    if result.status == "counterexample":
        got = "a tie" if result.got is None else automaton.classes[result.got]
        return "counterexample", (f"the exact proof's counterexample {compress(result.word, automaton)} (automaton "
                                  f"{automaton.classes[result.expected]}, network {got})")
    return "open", f"the exact proof is open: {result.reason}"
