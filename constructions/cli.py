"""Command line of the constructions room: ``bilinear verify`` (and ``bilinear matrix``).

``bilinear verify SPEC VARIANT`` builds the smallest known construction of the family in the
variant and proves it exactly; when no construction exists it asks the certificate search for an
impossibility certificate, else reports the cell as open.  With ``--weights FILE`` it proves the
given weights instead.  Status (text and ``--json``): ``proved``, ``counterexample``,
``impossible`` or ``open``.  Exit status: 0 for proved or impossible, 1 for a counterexample,
3 for open, 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys

from bilinear.cli import positive_int
from bilinear.errors import ConstructionError, WeightsError

__all__ = ["register", "verify_cell"]

EXIT = {"proved": 0, "impossible": 0, "counterexample": 1, "open": 3}


def _certify(automaton, variant):
    from .certificates import certify

    return certify(automaton, variant)


def verify_cell(spec: str, variant: str, bound: int | None = None, weights_path=None) -> dict:
    """The JSON-ready verdict of ``bilinear verify`` (see the module docstring).

    >>> verify_cell("dihedral:6", "block:2")["status"], verify_cell("dihedral:6", "block:2")["dim"]
    ('proved', 2)
    """
    from bilinear.automata.families import from_spec

    from .prove import DEFAULT_BOUND, prove
    from .registry import build
    from .weights import Weights, parse_variant

    automaton = from_spec(spec)
    v = parse_variant(variant)
    bound = DEFAULT_BOUND if bound is None else bound
    out: dict = {"spec": automaton.name or spec, "variant": v.spec}
    if weights_path is not None:
        weights = Weights.load(weights_path)
        if weights.variant != v.spec:
            raise WeightsError(
                f"weights file {str(weights_path)!r} has variant {weights.variant!r}, not {v.spec!r}"
            )
        out["source"] = str(weights_path)
    else:
        try:
            weights = build(automaton, v)
        except ConstructionError as exc:
            cert = _certify(automaton, v.spec)
            if cert is not None:
                out.update(status="impossible", dim=None, certificate=cert.to_dict())
            else:
                out.update(status="open", dim=None, reason=str(exc))
                _add_bound(out, automaton, v.spec)
            return out
        out["source"] = "construction"
    result = prove(weights, automaton, bound=bound)
    out["dim"] = weights.dim
    out["exact"] = weights.exact
    out["states_explored"] = result.states_explored
    if result.status == "proved":
        out["status"] = "proved"
        _add_bound(out, automaton, weights.variant)
        out["hidden_states"] = result.hidden_states
        out["margin"] = None if result.margin is None else {"exact": str(result.margin), "float": result.margin_float}
    elif result.status == "counterexample":
        out.update(
            status="counterexample",
            word=result.text,
            word_indices=list(result.word),
            expected=automaton.classes[result.expected],
            got=None if result.got is None else automaton.classes[result.got],
        )
    else:
        out.update(status="open", reason=result.reason, words=list(result.texts), bound=bound)
    return out


def _add_bound(out: dict, automaton, variant: str) -> None:
    """``lower_bound`` (with its theorem and reason) and, for a proved cell, ``minimal``."""
    from .bounds import lower_bound

    bound, theorem, reason = lower_bound(automaton, variant)
    out.update(lower_bound=bound, lower_bound_theorem=theorem, lower_bound_reason=reason)
    if out.get("dim") is not None:
        out["minimal"] = bound == out["dim"]


def _dim_text(out: dict) -> str:
    if out.get("lower_bound") is None:
        return f"d={out['dim']}"
    known = "minimal" if out["minimal"] else f"lower bound {out['lower_bound']}"
    return f"d={out['dim']} ({known})"


def _text(out: dict) -> str:
    head = f"{out['spec']} {out['variant']}: {out['status']}"
    lines = []
    status = out["status"]
    if status == "proved":
        head += f", {_dim_text(out)}"
        lines.append(f"  lower bound: d >= {out['lower_bound']} ({out['lower_bound_theorem']}: {out['lower_bound_reason']})")
        lines.append(f"  reachable (state, direction) pairs: {out['states_explored']}")
        if out.get("margin"):
            lines.append(f"  minimum margin: {out['margin']['float']:.6g} (exact: {out['margin']['exact']})")
    elif status == "counterexample":
        head += f", d = {out['dim']}"
        word = out["word"] or "(empty word)"
        lines.append(f"  shortest failing word: {word}")
        got = out["got"] if out["got"] is not None else "a tie"
        lines.append(f"  automaton says {out['expected']}, weights say {got}")
    elif status == "impossible":
        cert = out["certificate"]
        lines.append(f"  certificate ({cert['kind']}): {cert['summary']}")
        lines.append(f"  witnesses labelled {cert['labels'][0]} / {cert['labels'][1]} by the automaton")
        lines.append(f"  theorem: {cert['theorem']}")
    else:
        lines.append(f"  {out.get('reason', '')}")
        if out.get("lower_bound") is not None:
            lines.append(f"  known: d >= {out['lower_bound']} ({out['lower_bound_theorem']}: {out['lower_bound_reason']})")
        if out.get("words"):
            lines.append(f"  words the weights separate: {out['words'][0]} / {out['words'][1]}")
    if "float_check" in out:
        fc = out["float_check"]
        lines.append(
            f"  float check ({fc['n_words']} words of length {fc['length']}): accuracy {fc['accuracy']:.4f}, "
            f"worst margin {fc['worst_margin']:.3g}"
        )
    return "\n".join([head] + lines)


def _run_verify(args: argparse.Namespace) -> int:
    out = verify_cell(args.spec, args.variant, bound=args.bound, weights_path=args.weights)
    if args.float and out["status"] in ("proved", "counterexample", "open") and out.get("dim") is not None:
        from bilinear.automata.families import from_spec

        from .check import check
        from .registry import build
        from .weights import Weights

        automaton = from_spec(args.spec)
        weights = Weights.load(args.weights) if args.weights else build(automaton, args.variant)
        out["float_check"] = check(weights, automaton, length=args.length, words=args.words, seed=args.seed).to_json()
    if args.save and out.get("source") == "construction":
        from .registry import build

        build(args.spec, args.variant).save(args.save)
        out["saved"] = str(args.save)
    if args.json:
        json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        print(_text(out))
    return EXIT[out["status"]]


def register(sub) -> None:
    """Add ``bilinear verify`` and ``bilinear matrix``."""
    p = sub.add_parser(
        "verify",
        help="prove a construction (or given weights) exactly, or certify impossibility",
        description=(
            "Build the smallest known construction of SPEC in VARIANT and prove it exactly for "
            "every word (breadth-first closure of (state, hidden direction) pairs); with no "
            "construction, print an impossibility certificate or report the cell open. "
            "Exit status 0 proved/impossible, 1 counterexample, 3 open, 2 bad input."
        ),
    )
    p.add_argument("spec", metavar="SPEC", help="family spec, e.g. dihedral:50 or cyclic:3*parity")
    p.add_argument("variant", metavar="VARIANT", help="full, factorized:R, block:B, rotation2d, diagonal, positive")
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")
    p.add_argument("--bound", type=positive_int, default=None, metavar="N",
                   help="give up (status open) past N x states reachable pairs (default 64)")
    p.add_argument("--weights", metavar="FILE", default=None, help="prove these weights (JSON file) instead")
    p.add_argument("--save", metavar="FILE", default=None, help="write the construction's weights to FILE")
    p.add_argument("--float", action="store_true", help="also run the float check on random long words")
    p.add_argument("--length", type=positive_int, default=500, help="float check word length (default 500)")
    p.add_argument("--words", type=positive_int, default=1000, help="float check word count (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="float check seed (default 0)")
    p.set_defaults(handler=_run_verify)
    from . import matrix

    matrix.register(sub)
