"""Operator mutants made automatically from the source of the proof and certification code.

`benchmarks/mutate.py` runs mutants written by hand (a dropped term of a theorem, an inflated
margin).  This script makes them mechanically, so that no condition is left out because nobody
thought of it: in the functions chosen, every comparison has its operator moved to the boundary
or negated (``<`` to ``<=``, ``==`` to ``!=``), every ``and`` becomes ``or`` and back, a ``not``
is dropped, ``+`` and ``-`` swap (and ``*`` and ``//``), an integer constant grows by one (a 1
also becomes 0), ``True`` and ``False`` swap,
and a ``raise``, a bare call or an augmented assignment is replaced by ``pass``.

Each mutant runs the tests given for its file in a private copy of the repository (never the
working tree: the script can run while you edit, and ``--jobs`` copies run side by side), with
``pytest -x`` and a timeout; a test failure or a timeout *kills* the mutant.  A mutant that no
test kills is printed with its file, line and text: either a missing test, or an equivalent
mutant (one that cannot change any result), which ``EQUIVALENT`` lists with the reason.

    OMP_NUM_THREADS=1 python benchmarks/mutate_auto.py              # every target
    OMP_NUM_THREADS=1 python benchmarks/mutate_auto.py -k prover    # targets whose name has "prover"
    python benchmarks/mutate_auto.py --list                         # the mutants, without running

Not in CI (a full run is tens of minutes).  The figures of the last run are in
benchmarks/MUTATION.md; the mutants judged equivalent are in ``EQUIVALENT``.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROOMS = ("automata", "constructions", "learned", "analysis")


@dataclass(frozen=True)
class Target:
    """The functions of one file to mutate (all of its functions when ``functions`` is empty;
    a name matches a function or a method ``Class.method``, and a class takes all its methods),
    and the tests that must kill every mutant."""

    name: str
    path: str
    functions: tuple[str, ...]
    tests: tuple[str, ...]

    @property
    def test_ids(self) -> tuple[str, ...]:
        """The tests, and the file's own doctests (tests/test_doctests.py, one case per module)."""
        module = "bilinear." + self.path.removesuffix(".py").replace("/", ".")
        return (*self.tests, f"tests/test_doctests.py::test_module_doctests[{module}]")


EXTRACT_TESTS = ("tests/analysis/test_extract_votes.py", "tests/analysis/test_extract.py",
                 "tests/analysis/test_extract_radius.py")
SCAN_TESTS = ("tests/learned/test_scan.py", "tests/learned/test_scan_auto.py", "tests/learned/test_householder_span.py")
PROVER_TESTS = ("tests/constructions/proof/test_prover.py", "tests/constructions/proof/test_prover_reference.py",
                "tests/constructions/values/test_soundness.py",
                "tests/constructions/handmade/test_families.py", "tests/constructions/proof/test_hidden_store.py")

# the sampled closure's own tests first: a wrong composition there is redone on whole rows, which
# the other files' large automata then take minutes over (a kill by timeout, not by a test)
CLOSURE_TESTS = ("tests/automata/test_closure_sample.py", "tests/automata/test_closure.py",
                 "tests/automata/test_monoid.py", "tests/automata/test_closure_shortlex.py")

FLOATCHECK_TESTS = ("tests/constructions/horizon/test_floatcheck_judges.py", "tests/constructions/horizon/test_floatcheck_table.py",
                    "tests/constructions/horizon/test_floatcheck_bound.py",
                    "tests/constructions/horizon/test_floatcheck_rescaled.py", "tests/constructions/horizon/test_floatcheck.py",
                    "tests/constructions/horizon/test_floatcheck_blocks.py")

TARGETS = [
    Target("prover", "constructions/proof/prover.py", (),
           PROVER_TESTS + ("tests/constructions/values/test_stack.py", "tests/constructions/proof/test_prover_affine.py")),
    Target("certificates", "constructions/impossible/certificates.py", (),
           ("tests/constructions/impossible/test_certificates.py", "tests/constructions/test_matrix.py",
            "tests/constructions/proof/test_prover_affine.py")),
    Target("affine", "constructions/values/affine.py", (),
           ("tests/constructions/values/test_affine.py", "tests/constructions/proof/test_prover_affine.py",
            "tests/constructions/test_cli_affine.py")),
    Target("bounds", "constructions/impossible/bounds.py", (),
           ("tests/constructions/impossible/test_bounds.py", "tests/constructions/impossible/test_minimal.py",
            "tests/constructions/impossible/test_monomial_resets.py", "tests/constructions/handmade/test_families.py",
            "tests/constructions/handmade/test_complex_monomial.py")),
    Target("conformance", "constructions/values/variants.py", (),
           ("tests/constructions/values/test_variants.py", "tests/constructions/values/test_weights.py",
            "tests/constructions/handmade/test_families.py", "tests/constructions/values/test_conformance_edges.py",
            "tests/constructions/values/test_soundness.py")),
    Target("factored", "constructions/values/factored.py", (),
           ("tests/constructions/values/test_dplr_count.py", "tests/constructions/values/test_conformance_edges.py", "tests/constructions/values/test_variants.py",
            "tests/constructions/values/test_weights.py", "tests/constructions/handmade/test_families.py",
            "tests/constructions/handmade/test_onehot_householder.py", "tests/constructions/handmade/test_rotation_projections.py",
            "tests/constructions/values/test_soundness.py", "tests/constructions/values/test_weightfile.py",
            "tests/constructions/handmade/test_complex_monomial.py",
            "tests/constructions/values/test_rational_paths.py")),
    # the exact products of Householder factors in FLINT and the ones kept (constructions/values/linalg.py)
    Target("rational_householder", "constructions/values/linalg.py", ("rational_householder", "_rational_householder"),
           ("tests/constructions/values/test_householder_split.py::test_a_composition_is_made_once_per_factors_and_handed_out_as_a_copy",
            "tests/constructions/values/test_householder_split.py::test_kept_compositions_tell_an_int_from_a_fraction_and_leave_a_zero_vector_to_the_general_path",
            "tests/constructions/values/test_householder_split.py::test_at_most_max_entries_compositions_are_kept_the_oldest_dropped_first",
            "tests/constructions/values/test_rational_paths.py", "tests/constructions/handmade/test_onehot_householder.py")),
    Target("complex_monomial", "constructions/handmade/complex_monomial.py", (),
           ("tests/constructions/handmade/test_complex_monomial.py",)),
    Target("rotation_projections", "constructions/handmade/reflections.py", ("rotation_projections", "_order_five"),
           ("tests/constructions/handmade/test_rotation_projections.py",)),
    Target("index_two", "automata/groups.py", ("abelian_of_index_at_most_two", "greedy_generators"),
           ("tests/automata/test_groups.py",)),
    Target("halfturns", "constructions/handmade/halfturns.py", (),
           ("tests/constructions/handmade/test_half_turns.py", "tests/constructions/handmade/test_known_counts.py")),
    Target("factor_snap", "constructions/horizon/snap.py", ("factor_snap",),
           ("tests/constructions/handmade/test_complex_monomial.py",)),
    # the construction read off a network up to a change of basis, only where the network holds a copy
    Target("construction_snap", "constructions/horizon/snap.py", ("_intertwiner", "construction_snap"),
           ("tests/analysis/test_construction_snap.py", "tests/constructions/horizon/test_horizon_orbit.py",
            "tests/constructions/horizon/test_horizon_projective.py")),
    Target("domains", "constructions/exact/domains.py", (),
           PROVER_TESTS + ("tests/constructions/exact/test_field.py", "tests/constructions/exact/test_domains.py")),
    Target("search", "constructions/proof/search.py", (),
           PROVER_TESTS + ("tests/constructions/test_limits.py", "tests/constructions/proof/test_clock.py")),
    # the prover's closure along the orbit of one generator: the general loop's result, or None
    Target("orbitproof", "constructions/proof/orbitproof.py", (),
           ("tests/constructions/proof/test_orbit_proof.py", "tests/constructions/proof/test_orbit_proof_mutants.py")),
    Target("stackprover", "constructions/proof/stackprover.py", (),
           ("tests/constructions/values/test_stack.py", "tests/constructions/impossible/test_depth_aperiodic.py")),
    # not proof code: the evaluation loop every accuracy at length 500 comes from
    Target("grouped_loop", "learned/grouped_loop.py", (),
           ("tests/learned/test_scan_bits.py", "tests/learned/test_grouped_loop.py", "tests/learned/test_scan.py")),
    # the modules that decide a verdict without a proof of their own: the monoid every classification
    # reads, minimisation and the shortlex searches, the extraction's clustering and votes, and the
    # hand-written backward passes of the structured scans (targeted by function; after the splits of
    # analysis/extract.py and learned/scan.py each target names the module its functions live in)
    Target("closure", "automata/closure.py", ("_Keys", "_Codes", "_Search.__init__", "_Search.level", "_Clock.tick", "_direct",
                                              "_closure", "_Search.code_round", "_Search.finish_rounds", "_Search._number_codes", "_levels",
                                              "_Search._first_new"),
           CLOSURE_TESTS),
    # the tables of the closure's codes, made once a process (split from automata/closure.py in round 7)
    Target("codetables", "automata/codetables.py", (), CLOSURE_TESTS),
    # the sampled closure of automata with more than 128 states (issue 48's rewrite)
    Target("sampled", "automata/sampled.py", (), CLOSURE_TESTS),
    Target("minimize", "automata/minimize.py",
           ("access_words", "distinguishing_word", "_moore_blocks", "_hopcroft_blocks", "_blocks", "minimize"),
           ("tests/automata/test_access_words.py", "tests/automata/test_minimize.py")),
    Target("extract", "analysis/extract.py",
           ("_majority", "_complete_geometry", "_complete_behaviour", "_extract"), EXTRACT_TESTS),
    Target("extract_clusters", "analysis/clusters.py", ("_Clusters", "_Signatures"),
           ("tests/analysis/test_leader_clusters.py",) + EXTRACT_TESTS),
    Target("scan_autograd", "learned/autograd_scans.py",
           ("_HouseholderScan", "_MonomialStep", "_MonomialScan", "_LowRankScan", "_unit_rows_grad",
            "_previous_states_product", "_real_gram"), SCAN_TESTS),
    Target("scan_autograd_wy", "learned/transitions.py", ("compact_wy",), SCAN_TESTS),
    # certify --from: the snap, the proof with the model's own head and the horizon per float format
    # (docs/theory.md, Theorem A7), and the head in balls with its rounding model
    Target("certify_external", "analysis/certify_external.py",
           ("_snap_key", "snap_heads", "closure", "_check_edges", "horizon", "_length", "_grown", "label_diff"),
           ("tests/analysis/test_certify_external_fast.py",)),
    Target("external_head", "analysis/external_head.py",
           ("Rounding", "margin", "HeadBalls", "affine_balls", "torch_dtype", "largest", "step_rounding"),
           ("tests/analysis/test_external_head.py", "tests/analysis/test_certify_external_fast.py")),
    # a model's own report: the directed words it runs and the verdict that takes their failure
    # (docs/analysis.md, "Directed words")
    Target("directed", "analysis/lengths.py", ("DirectedRun", "directed_plan", "directed_run", "network_label"),
           ("tests/analysis/test_directed_words.py", "tests/analysis/test_failing_word.py", "tests/analysis/test_lengths.py")),
    Target("external_verdict", "analysis/external.py", ("_access_words", "_first_error", "failing_word",
                                                        "_with_directed", "_verdict"),
           ("tests/analysis/test_failing_word.py", "tests/analysis/test_directed_words.py", "tests/analysis/test_external.py")),
    # the one-line verdict per network (analysis/implements.py): what it implements, or why not
    Target("implements", "analysis/implements.py", (),
           ("tests/analysis/test_implements_lines.py", "tests/analysis/test_sentences.py", "tests/analysis/test_report_truth.py",
            "tests/analysis/test_report_sentences.py", "tests/analysis/test_report.py")),
    # do the learned transitions commute, and which relations do they satisfy (analysis/commutators.py,
    # analysis/relations.py): the report's verdicts on a network's algebra
    Target("commutators", "analysis/commutators.py", (),
           ("tests/analysis/test_algebra_verdicts.py", "tests/analysis/test_commutators.py", "tests/analysis/test_sentences.py",
            "tests/analysis/test_report.py",
            "tests/analysis/test_report_truth.py", "tests/analysis/test_report_sentences.py")),
    Target("relations", "analysis/relations.py", (),
           ("tests/analysis/test_algebra_verdicts.py", "tests/analysis/test_relations.py", "tests/analysis/test_sentences.py",
            "tests/analysis/test_report.py",
            "tests/analysis/test_report_truth.py", "tests/analysis/test_report_sentences.py")),
    # the spectra and orders up to scale (analysis/spectrum.py): "acts as order k"
    Target("spectrum", "analysis/spectrum.py", (),
           ("tests/analysis/test_spectrum.py", "tests/analysis/test_spectrum_verdicts.py",
            "tests/analysis/test_algebra_verdicts.py", "tests/analysis/test_sentences.py",
            "tests/analysis/test_report_truth.py",
            "tests/analysis/test_implements_lines.py")),
    Target("certify_balls", "analysis/certify_balls.py", (),
           ("tests/analysis/test_certify_balls.py", "tests/analysis/test_certify_external_fast.py")),
    Target("formats", "constructions/horizon/roundoff.py", ("FloatFormat", "_format"),
           ("tests/constructions/horizon/test_float_range.py",)),
    # issue 48's speed code: the float run as an automaton (Theorem 26) and the float check's table,
    # dense run and many-class bound, which must give the dense run's accuracy, worst margin and first
    # failure; the ball norms and the node horizon's tables (Theorem 20), whose balls must enclose
    Target("floatstates", "constructions/values/floatstates.py", (),
           ("tests/constructions/values/test_floatstates.py", "tests/constructions/horizon/test_floatcheck_table.py")),
    Target("floatcheck_table", "constructions/horizon/floatcheck.py", ("_table_check", "_dense_check", "_states", "_Bound",
                                                                       "_Work", "_chunk_rows", "_row_margins", "label_margins", "_chunk_margins",
                                                                       "_norms"),
           FLOATCHECK_TESTS),
    # a cell's verdict: the phases, their time budget and the constructions built (issue 48, round 11)
    Target("settle", "constructions/settle.py", (),
           ("tests/constructions/test_settle_clock.py", "tests/constructions/test_settle_counts.py",
            "tests/constructions/values/test_householder_split.py",
            "tests/constructions/test_settle_text.py", "tests/constructions/test_settle_budget.py",
            "tests/constructions/test_matrix.py", "tests/constructions/test_limits.py", "tests/constructions/test_cli.py",
            "tests/constructions/test_hostile_verify.py", "tests/constructions/test_mixed_stack.py",
            "tests/constructions/test_cli_affine.py", "tests/constructions/test_fromconfig.py",
            "tests/constructions/test_signing.py", "tests/constructions/handmade/test_families.py",
            "tests/constructions/impossible/test_minimal.py", "tests/constructions/impossible/test_monomial_resets.py",
            "tests/constructions/values/test_variants.py", "tests/automata/test_field_families.py", "tests/test_sizes.py",
            "tests/constructions/test_settle_weights.py")),
    # Theorem 21: a float network on signed axes, proved for every length in its own arithmetic
    Target("axes", "constructions/horizon/axes.py", (), ("tests/constructions/horizon/test_axes.py",)),
    # the prover's verdicts and their JSON (what verify --json and every report print)
    Target("verdicts", "constructions/proof/verdicts.py", (),
           ("tests/constructions/proof/test_verdict_names.py", "tests/constructions/proof/test_prover.py",
            "tests/constructions/test_settle_weights.py", "tests/constructions/test_cli.py")),
    # the exact run of the directed words before a proof (verify's refutations past the prover's reach)
    Target("exactwords", "constructions/horizon/exactwords.py", (),
           ("tests/constructions/horizon/test_exactwords_reference.py", "tests/constructions/horizon/test_exactwords.py")),
    # Theorem 25: invariant cones of a two-dimensional state's ray, checked in ball arithmetic
    Target("horizon_ray", "constructions/horizon/horizon_ray.py", (),
           ("tests/constructions/horizon/test_horizon_ray.py", "tests/constructions/horizon/test_horizon_ray_cones.py")),
    # Theorem 23: the recurrence, the checks and the resets (the search heuristics and the set-up: the next target)
    Target("horizon_projective", "constructions/horizon/horizon_projective.py",
           ("_rank_one", "resetting_symbols", "_closure", "_restart_pairs", "_holds", "_demand", "_recurrence", "_step_run",
            "_within", "_certified", "_Common"),
           ("tests/constructions/horizon/test_horizon_projective.py",
            "tests/constructions/horizon/test_horizon_projective_core.py")),
    # Theorem 23's search heuristics and set-up: the re-based dropped coordinates, the runs' constants, the grid
    Target("horizon_projective_setup", "constructions/horizon/horizon_projective.py",
           ("_float_blocks", "_worst", "contracting_dropped", "_Run", "_front", "_vnorm", "_matrices", "_run",
            "_couplings", "_setup", "_trace", "_grid_search", "projective_horizon"),
           ("tests/constructions/horizon/test_horizon_projective_setup_mutants.py",
            "tests/constructions/horizon/test_horizon_projective.py",
            "tests/constructions/horizon/test_horizon_projective_core.py")),
    # Theorem 22: a trained monomial network snapped to units after a diagonal change of basis
    Target("gauge", "constructions/horizon/gauge.py", (),
           ("tests/constructions/horizon/test_gauge.py", "tests/constructions/horizon/test_gauge_mutants.py")),
    # Theorem 24: the phase and modulus of every complex block, bounded on a box that grows with the length
    Target("horizon_phase", "constructions/horizon/horizon_phase.py", (),
           ("tests/constructions/horizon/test_horizon_phase.py", "tests/constructions/horizon/test_horizon_phase_mutants.py")),
    # Theorem 19: the orbit horizon of a snap that is no isometry (its finite orbit enumerated exactly)
    Target("horizon_orbit", "constructions/horizon/horizon_orbit.py", (),
           ("tests/constructions/horizon/test_horizon_orbit_mutants.py", "tests/constructions/horizon/test_horizon_orbit.py",
            "tests/constructions/horizon/test_horizon_projective_core.py",
            "tests/constructions/horizon/test_horizon_projective.py")),
    # Theorem 16 block by block: the block-wise horizon of block-diagonal float weights (docs/theory.md Section 6)
    Target("horizon_blocks", "constructions/horizon/horizon_blocks.py", (),
           ("tests/constructions/horizon/test_horizon_blocks_mutants.py",
            *(f"tests/constructions/horizon/test_horizon.py::{t}" for t in (
                "test_block_wise_length_is_its_recurrence_stepped_directly",
                "test_margin_and_phase_error_of_a_drifted_rotation_are_the_constructions",
                "test_the_block_wise_bound_charges_rounding_on_every_step_of_an_exact_block")),
            "tests/analysis/test_certify.py::test_block_wise_bound_needs_a_block_diagonal_network")),
    # a float stack snapped to an exact one of the same variant, layer by layer (certify's stacks)
    Target("stacksnap", "constructions/horizon/stacksnap.py", (),
           ("tests/constructions/horizon/test_stacksnap_layers.py", "tests/constructions/horizon/test_stacksnap.py")),
    # the derived series listed element by element (issue 48: no sympy import for a small group)
    Target("derived_series", "constructions/handmade/cascade.py",
           ("_listed", "_kept_generators", "_derived_subgroup", "_listed_series", "_derived_series"),
           ("tests/constructions/handmade/test_derived_series.py",
            "tests/constructions/handmade/test_known_before_building.py")),
    # the depth bound (Theorem 6, S2, S3; issue 48 made an abelian group's depth free of the cascade)
    Target("depth", "constructions/impossible/depth.py", (),
           ("tests/constructions/impossible/test_depth_aperiodic.py", "tests/constructions/test_settle_budget.py",
            "tests/constructions/handmade/test_cascade_frattini.py", "tests/constructions/values/test_stack.py",
            "tests/constructions/impossible/test_depth_bound.py")),
    # the rest of the float check: its words, sizes, blocks, judges, empty word and result (issue 48, round 11)
    Target("floatcheck_rest", "constructions/horizon/floatcheck.py",
           ("CheckResult", "_cycled", "directed_words", "check_bytes", "check_size", "_batch", "_block_steps",
            "_score_blocks", "_judge_scores", "_judge_states", "_empty_margin", "check"),
           (*FLOATCHECK_TESTS, "tests/constructions/horizon/test_floatcheck_inputs.py", "tests/constructions/test_limits.py",
            "tests/constructions/horizon/test_testing.py")),
    # the float run's entrywise way (diagonal matrices): the same numbers as the whole matrices' products, chosen only
    # for diagonal matrices
    Target("floatrun_entrywise", "constructions/values/floatrun.py",
           ("_method", "_off_diagonal", "is_diagonal", "_first_not_diagonal", "_chunked", "_entrywise_span",
            "_entrywise_stepper"),
           ("tests/constructions/values/test_floatrun.py", "tests/constructions/horizon/test_floatcheck_blocks.py")),
    Target("floatrun_grouped", "constructions/values/floatrun.py",
           ("_stepper", "_per_symbol", "_slot_steps", "_slots", "float_blocks", "rescale_span", "_rescale",
            "_rescale_work", "start_row", "_start"),
           ("tests/constructions/values/test_floatrun.py", "tests/constructions/values/test_floatrun_spans.py",
            "tests/constructions/horizon/test_floatcheck_blocks.py", "tests/constructions/horizon/test_floatcheck_rescaled.py")),
    Target("balls_norms", "constructions/exact/balls.py", ("frob", "op_norm"),
           ("tests/constructions/exact/test_balls.py", "tests/constructions/horizon/test_horizon_nodes_tables.py",
            "tests/constructions/horizon/test_horizon_nodes.py")),
    Target("horizon_nodes_tables", "constructions/horizon/horizon_nodes.py",
           ("NodeSets.readout_norms", "NodeSets._tail_values", "NodeSets._row_ball", "NodeSets.reentry_norm",
            "NodeSets._reentry_product", "NodeSets._tables", "_magnitudes"),
           ("tests/constructions/horizon/test_horizon_nodes_tables.py", "tests/constructions/horizon/test_horizon_nodes.py")),
    # the node sets' per-node margins (centre margin less an upper bound of every error): the soundness of the node horizon
    # the clustered node sets' split (farthest-point seeds per key, each row to its nearest): any split is sound,
    # so a mutant here changes tightness only; the test compares with the split written out row by row
    Target("cluster_labels", "constructions/horizon/horizon_nodes.py", ("_cluster_labels",),
           ("tests/constructions/horizon/test_horizon_nodes.py::test_the_clusters_are_the_farthest_point_split",
            "tests/constructions/horizon/test_horizon_nodes.py::test_the_triangle_inequality_skips_no_row_a_hair_nearer_to_the_new_seed")),
    Target("horizon_nodes_margins", "constructions/horizon/horizon_nodes.py", ("NodeSets.margins",),
           ("tests/constructions/horizon/test_horizon_nodes_margins.py",
            *(f"tests/constructions/horizon/test_horizon_nodes.py::{t}" for t in (
               "test_no_word_fails_at_or_below_the_node_horizon[cyclic:3-0.003-81]",
               "test_no_word_fails_at_or_below_the_node_horizon[reset:3-0.0003-81]",
               "test_no_word_fails_at_or_below_the_node_horizon[dihedral:3-0.003-64]",
               "test_the_length_is_where_a_set_first_crosses_a_decision_boundary")))),
    # Theorem 16: the global horizon (the constants in the snap's basis, the exhaustive start, the recurrence);
    # test_horizon.py's unit tests only (its certify runs take 20 s, past a 30 s timeout on a loaded machine)
    Target("horizon_global", "constructions/horizon/horizon_global.py", (),
           ("tests/constructions/horizon/test_horizon_global_mutants.py",
            *(f"tests/constructions/horizon/test_horizon.py::{t}" for t in (
               "test_theorem_16_length_is_the_recurrence_stepped_directly",
               "test_theorem_16_step_and_readout_condition_are_the_theorem",
               "test_closed_form_never_beyond_the_stepped_recurrence", "test_closed_form_is_the_linear_recurrence_it_states",
               "test_margin_and_phase_error_of_a_drifted_rotation_are_the_constructions",
               "test_a_margin_below_the_readout_rounding_is_not_certified_at_the_exhaustive_start",
               "test_float64_rounding_is_charged_in_the_recurrence")),
            "tests/constructions/horizon/test_horizon_ceiling.py", "tests/constructions/horizon/test_horizon_nodes_tables.py")),
    # Theorem 17: the invariant tube (every length where the float dynamics contract)
    Target("tube", "constructions/horizon/tube.py", (),
           ("tests/constructions/horizon/test_tube_mutants.py",
            "tests/constructions/horizon/test_horizon.py::test_tube_radius_needs_the_start_state_and_the_margins",
            "tests/constructions/horizon/test_horizon.py::test_tube_refuses_a_start_state_on_the_wrong_side",
            "tests/analysis/test_certify.py::test_contracting_network_is_proved_for_every_length_by_the_invariant_tube")),
    # Theorem S5: the automaton each layer of a stack computes, exact and float (constructions/horizon/horizon_stack.py)
    Target("horizon_stack", "constructions/horizon/horizon_stack.py", (),
           ("tests/constructions/horizon/test_horizon_stack_mutants.py",
            "tests/constructions/horizon/test_stacksnap_layers.py",
            "tests/analysis/test_certify_stack_horizon.py::test_a_layer_with_a_tie_has_no_automaton",
            "tests/analysis/test_certify_stack_horizon.py::test_a_layer_over_the_limit_has_no_automaton")),
    # the dispatcher: the perturbation and certified horizons, the widest node horizon (constructions/horizon/horizon.py)
    Target("horizon_entry", "constructions/horizon/horizon.py", (),
           ("tests/constructions/horizon/test_horizon_entry_mutants.py",
            "tests/constructions/horizon/test_horizon_ceiling.py", "tests/constructions/horizon/test_failsearch_floor.py",
            "tests/constructions/horizon/test_horizon_phase.py", "tests/constructions/horizon/test_horizon_projective.py",
            "tests/constructions/horizon/test_horizon_orbit.py::test_the_dispatcher_sends_a_non_isometric_snap_to_the_orbit_bound")),
    # exact cyclotomic fields (constructions/exact/field.py)
    Target("field", "constructions/exact/field.py", (),
           ("tests/constructions/exact/test_field_mutants.py", "tests/constructions/exact/test_field.py",
            "tests/constructions/exact/test_domains.py")),
    # the search for a shortest failing word of float weights and its shortening (certify's "fails at length N on WORD")
    Target("failsearch", "constructions/horizon/failsearch.py", (),
           ("tests/constructions/horizon/test_failsearch_mutants.py",
            "tests/constructions/horizon/test_horizon.py::test_a_network_wrong_on_the_empty_word_fails_at_length_0",
            "tests/constructions/horizon/test_failsearch_floor.py",
            "tests/constructions/horizon/test_horizon_ray.py::test_flipflop_noise_fails_at_71_and_nothing_certifies_past_it",
            "tests/constructions/horizon/test_beam_failure.py",
            "tests/analysis/test_certify.py::test_failing_word_is_shortened_and_given_as_symbol_indices",
            "tests/constructions/horizon/test_exactwords_reference.py")),
    # the certificate of a float network (analysis/certify.py): restricted to the functions that make its claims
    # (the sentences and JSON of NetworkCertificate, certify_network's status and failure kind, the real-arithmetic
    # sign, the choice of the proved snap, the stack's horizon); certify_stack, StackCertificate, _candidates and
    # _validate are left out (their tests take minutes a mutant). Fast tests only, the fastest first
    Target("certify_network", "analysis/certify.py",
           ("NetworkCertificate", "certify_network", "exact_margin_sign", "_best_proved", "stack_horizon"),
           ("tests/analysis/test_certify_mutants.py",
            *(f"tests/analysis/test_certify.py::{t}" for t in (
                "test_bad_input", "test_round_off_tie_is_a_round_off_failure_and_never_inside_the_float64_bound",
                "test_contracting_network_is_proved_for_every_length_by_the_invariant_tube",
                "test_state_map_snap_of_a_noisy_flipflop_is_proved_and_its_failure_found",
                "test_hand_construction_as_float_holds_far_beyond_10000",
                "test_a_proved_snap_without_a_certified_length_has_its_own_status",
                "test_a_non_isometric_snap_gets_the_orbit_horizon_below_its_failure")),
            *(f"tests/analysis/test_certify_stack_horizon.py::{t}" for t in (
                "test_a_layer_with_a_tie_has_no_automaton",
                "test_a_layer_without_an_automaton_leaves_the_stack_uncertified",
                "test_tiny_noise_certifies_far_and_the_text_says_so")))),
    # the rest of analysis/certify.py: the certificate of a float stack, the snap candidates in their order and the
    # refusals of certify (round of 2026-12-07, afternoon), against fast tests only (small stacks, stubs)
    Target("certify_stack", "analysis/certify.py", ("certify_stack", "StackCertificate", "_candidates", "_validate"),
           ("tests/analysis/test_certify_stack_mutants.py",)),
]


#: Reasons shared by several equivalent mutants of :data:`EQUIVALENT`.
_SAME_TRIED = ("tried_for's count: which constructions build tries for a householder or dplr count depends "
               "on the kind and its options, never on the count (registry._kind_matches, the factored test)")
_FIRST_ONE = ("first = 1 is replaced by the factor bound for a count column; otherwise it is read only for a "
              "bare factorized column with nothing built, whose lower bound on d (Theorems 13, 14: the full "
              "matrices') does not depend on R")
_EMPTY_WORD = ("a float64 failing length 0 is the empty word's, given to every word at once (first_failures): "
               "then every search is of an empty prefix, None either way")
_AT_DEADLINE = "a clock reading equal to the deadline, to the nanosecond"
_GCD_ONE = "a gcd of 1 divides nothing: the same column"
_EXPONENT = ("a state is rescaled only outside [2^-64, 2^64]: its exponent e is at least 65 or at most -63, "
             "never 0 or 1")
_SIGN_ZERO = "sign(0) = -1 instead of 0: every caller asks whether a sign is > 0, false for both"
_ORBIT_STORE = ("the orbit's own store: its readout rows and symbol count are read only by scores and step, "
                "which _orbit_of never calls (it only adds and finds directions)")
_CHUNK_SIZE = ("the chunk size only: chunks are taken in stream order and the seen keys carry over, so the same "
               "pairs in the same order; the clock read between chunks makes a budget that runs out mid-search "
               "stop it at another moment (timing), and one spent before it stops it after the first level's "
               "one parent either way")
_STORED_AGAIN = ("hid[k] is 0 only for the start's orbit index 0, whose vector is the store's direction 0: "
                 "store.add finds it and returns 0 again")
_REAL_ROOT = ("a real cycle's root: the snap reads only whether its k is 0 (+1, else -1); its order q enters "
              "only the field's order L and its target phase only the complex spread, neither read for real weights")
_PHASE_GUESS = ("the float search's length is only a guess: the balls check it, bisect below it where it fails and "
                "past it where the next length holds too, so the length is the balls' largest for a condition "
                "monotone in t (Theorem 24's is), whatever the guess")
_PHASE_CENTRE = ("the start's log-moduli all shifted by one constant c: every term of a row's sum and both sides "
                 "of the ratio are multiplied by e^-c > 0, the same signs (the centre keeps the float search's "
                 "exponentials in range, and its guess is only a guess)")
_PHASE_UNDERFLOW = ("an underflow of 0 is charged as sqrt(d) x 0 x 2^bits = 0 in the branch or out of it, and real "
                    "arithmetic has underflow 0 (RoundOff.of, RoundOff.for_network)")
_GALLOP = ("the gallop's first step or growth: the binary search between the last true and the first false "
           "length finds the same largest t for an ok true up to some t and false after (the docstring's "
           "contract; Theorem 24's condition is monotone in t)")

_ORBIT_LOW = ("an X that is not finite: lo() makes it -inf, never > 0, >= 0 or > 1: the same 0 steps "
              "(Theorem 19's closed form)")
_ORBIT_MIN = ("a margin equal to the smallest so far: both are exact points (lo()'s lower ends), so the minimum "
              "keeps the same value either way (Theorem 19's constants)")

_BALL_AROUND_ZERO = ("a ball centred on exactly 0 subtracted instead of added: the same midpoints and the same radii "
                     "(arb adds the radii either way)")
_BLOCK_GALLOP = ("the gallop's first step or growth: after(k) is monotone in k (u and r grow with k), and the "
                 "bisection between the last true and the first false k (never past CAP - STEPPED) finds the "
                 "same largest k")

_NARROW_SAFE = ("the offsets added to the widened index instead of in the rows' own type at or near the "
                "boundary where both fit: the same indices, the same elements")
_LAYER_LABELS = ("the stand-in automaton's labels are read only by _Readout.screen (the prover's check of a state's "
                 "label), which layer_automaton never calls: class_of reads the store's scores and _Readout.diff only")

# exact cyclotomic fields (constructions/exact/field.py)
_FIELD_REDUCED = ("reduced=False only reduces again a polynomial already reduced modulo Phi_m (a sum, difference or "
                  "negation of reduced polynomials, a constant, a product with a constant factor: all of degree "
                  "below phi(m)); the remainder of such a polynomial is the polynomial itself")
_FIELD_LONGER = ("a longer coefficient list: the extra entries are trailing zeros, which fmpq_poly drops, so the "
                 "same polynomial")
_FIELD_SPARSE_EQ = ("equal elements have equal reduced polynomials, so equal non-zero coefficients (terms() of a dense "
                    "element; the given terms of a sparse one, by from_terms' contract): comparing terms or "
                    "polynomials answers alike for every pair of representations")
_FIELD_FLOOR_BALL = ("a ball test that succeeds never or less often, or one more precision tried: the exact comparison "
                     "after the balls finds the same floor of 2^32 Re x from any n = floor(mid) within one of it "
                     "(mid is a ball's centre, the ball contains 2^32 Re x), so the same floor")
_FIELD_CONST_CONJ = ("a constant c (one coefficient) sent through the general branch: the reversed list is [c] again "
                     "and c x^m reduces to c modulo Phi_m (Phi_m divides x^m - 1), the same number")
_FIELD_NONZERO = "the value compared with 0 is non-zero here (zero returned earlier, or skipped): > 0 and >= 0 agree"
_FIELD_FLOAT_BITS = ("the midpoint at 65 bits instead of 64, rounded to a double: float() and complex() are approximate "
                     "(neither precision gives the correctly rounded double every time); it can move the last bit "
                     "of a result that no caller or contract pins down")

# Theorem 23's grid of restart errors (constructions/horizon/horizon_projective.py, _grid_search)
_GRID_EDGE = ("with GRID = 48 the every-3rd points are 0, 3, .., 45, so the neighbours best -+ 1, 2 of the best "
              "lie in -2 .. 47: neither j = 0 nor j = GRID is ever among them, and the bounds 0 <= j and j < GRID "
              "decide only j = -2, -1, which every variant refuses")

# the spectra's nearest roots (analysis/spectrum.py, nearest_root)
_ROOT_NEAR_ZERO = ("not proved equivalent: a step k with g = gcd(j, k) > 1 finds again the root of step k / g (the same "
                   "order, j and distance), and a step with g = 1 gives order k, above every earlier one, so the tie "
                   "clause (and its lower order) acts only where the distances to three roots agree within 2e-12: a "
                   "normalised eigenvalue of modulus below about 1e-10, every root then at distance 1 within 2e-10 "
                   "(none found above 1e-8 by 400,000 points tried, Farey midpoints among them); the readings read "
                   "roots only within 0.01 of the unit circle, so only a JSON root of a near-zero eigenvalue moves")
_SPECTRUM_DEFAULT = ("not proved equivalent: a default of spectrum(); every caller in the package passes it "
                     "(analysis/report.py, analysis/layers.py, analysis/external.py)")

#: Mutants judged equivalent: (file, function, mutated text, occurrence in that function) -> why.
#: Keyed by function, not line, so that edits elsewhere in the file do not lose them.
EQUIVALENT: dict[tuple[str, str, str, int], str] = {
    # a model's own report (analysis/lengths.py, analysis/external.py)
    ('analysis/lengths.py', 'directed_plan', '1 -> 0', 1):
        "max(0, len(parts)) is len(parts): the float check lists at least one directed word (every symbol's "
        "powers) for every automaton, which has at least one symbol",
    # a network's algebra (analysis/commutators.py, analysis/relations.py)
    ('analysis/commutators.py', '_pair_norms', '1 -> 2', 0):
        "reshape(n, -2) is reshape(n, -1): numpy infers a dimension given as any negative number",
    ('analysis/commutators.py', '_pair_norms', '1 -> 2', 5):
        "reshape(n - a - 1, -2) is reshape(n - a - 1, -1), as the mutant above",
    ('analysis/commutators.py', 'commutators', '16 -> 17', 0):
        "not proved equivalent: a default; one more word only where the alphabet has more than 16 words of length "
        "2 to word_length, each new pair a commutator of two more products",
    ('analysis/commutators.py', 'commutators', 'a + 1 -> a - 1', 0):
        "the exact test then also visits (a, a), zero, and (a, a - 1), the same test as (a - 1, a) before it",
    ('analysis/commutators.py', 'commutators', '1 -> 0', 0):
        "range(a, n): the exact test also visits (a, a), whose commutator is zero",
    ('analysis/relations.py', 'reachable_basis', '2 -> 3', 0):
        "a third Gram-Schmidt pass against an orthonormal basis: the vector moves by rounding only",
    ('analysis/relations.py', 'reachable_basis', 'r <= rtol * n -> r < rtol * n', 0):
        "not proved equivalent: differs only at a residual of exactly rtol times the norm",
    ('analysis/relations.py', 'reachable_basis', 'len(basis) < d -> len(basis) <= d', 0):
        "with d vectors the basis is full: no vector has a residual left to add, the loop only empties the queue",
    ('analysis/relations.py', 'state_residual', 'na <= 1e-12 * scale -> na < 1e-12 * scale', 0):
        "not proved equivalent: differs only at an image of exactly 1e-12 of the largest",
    ('analysis/relations.py', 'state_residual', 'nb <= 1e-12 * scale -> nb < 1e-12 * scale', 0):
        "not proved equivalent: as the mutant above",
    ('analysis/relations.py', 'relation_residuals', '500 -> 501', 0):
        "not proved equivalent: a default; differs only for a monoid of more than 500 relations (one more checked)",
    ('analysis/relations.py', 'relation_residuals', '100_000 -> 100001', 0):
        "not proved equivalent: a default; differs only for a monoid of exactly 100,001 elements",
    ('analysis/relations.py', 'relation_residuals', '50 -> 51', 0):
        "not proved equivalent: a default burn-in one step longer; the visited span of a network whose states "
        "settle by step 50 is the same",
    ('analysis/relations.py', 'relation_residuals', '0 -> 1', 0):
        "not proved equivalent: the default seed of the visited states' words",
    ('analysis/relations.py', 'relation_residuals', '1 -> 2', 1):
        "h0.reshape(1, -2) is h0.reshape(1, -1): numpy infers a dimension given as any negative number",
    ('analysis/relations.py', 'relation_residuals', '1 -> 0', 2):
        "Q.shape[0] for Q.shape[1]: the two differ only for a basis of no columns, whose distance is 0.0 either way",
    ('analysis/relations.py', 'relation_residuals', '1 -> 0', 3):
        "V.shape[0] for V.shape[1]: as the mutant above, for the visited span",
    ('analysis/relations.py', 'relation_residuals', 'span.states is not None and R is not None -> '
     'span.states is not None or R is not None', 0):
        "R is never None: Weights always have a readout",
    ('analysis/relations.py', 'relation_residuals', 'visited <= tol -> visited < tol', 0):
        "not proved equivalent: differs only at a residual of exactly tol on the span",
    ('analysis/relations.py', 'relation_residuals', 'states <= tol -> states < tol', 0):
        "not proved equivalent: differs only at a state residual of exactly tol",
    # the spectra and orders up to scale (analysis/spectrum.py)
    ('analysis/spectrum.py', 'nearest_root', 'k // g -> k * g', 0):
        "the mutant's root (order k g, j / g) is at least 1/k of a turn further from z than the step's own root; " + _ROOT_NEAR_ZERO,
    ('analysis/spectrum.py', 'nearest_root', 'j // g -> j * g', 0):
        "the mutant's root (order k / g, j g) is another multiple of 1/k of a turn, no nearer than the step's own; "
        + _ROOT_NEAR_ZERO,
    ('analysis/spectrum.py', 'nearest_root', 'dist < best.distance - 1e-12 -> dist <= best.distance - 1e-12', 0):
        "not proved equivalent: differs only for a distance exactly 1e-12 below the best, to the last bit",
    ('analysis/spectrum.py', 'nearest_root', 'abs(dist - best.distance) <= 1e-12 -> abs(dist - best.distance) < 1e-12', 0):
        "not proved equivalent: differs only for two distances exactly 1e-12 apart, to the last bit",
    ('analysis/spectrum.py', 'nearest_root', 'dist - best.distance -> dist + best.distance', 0):
        "the mutant's tie needs z within 1e-12 of two roots, the same root (roots of order <= MAX_ORDER are 6e-8 "
        "apart), of the same order: it never takes one; " + _ROOT_NEAR_ZERO,
    ('analysis/spectrum.py', 'nearest_root', 'order < best.order -> order <= best.order', 0):
        "a candidate of the best's order is the best's root: a step with g = 1 gives order k, above every earlier "
        "one, and every root of order q comes from step q or a step k with k / g = q, which finds the same root; "
        "the same z, order, j and distance, an equal RootMatch",
    ('analysis/spectrum.py', 'power_structure', '0 -> 1', 0):
        "M.shape[1] for M.shape[0]: power_structure's one caller, matrix_spectrum, checks that M is square",
    ('analysis/spectrum.py', 'power_structure', '1 -> 2', 0):
        "the exact search from 2 I: every power is doubled, and is_zero_matrix and positive_multiple (c > 0) of "
        "2 M^n and 2 M^i answer as of M^n and M^i",
    ('analysis/spectrum.py', 'MatrixSpectrum.headline', 'vs.index > 0 -> vs.index >= 0', 0):
        "index 0 on the span is an order found within span_tol, and its residual is the same distance (the same "
        "normalised powers of the same compressed matrix against I): it holds on the span, a branch before",
    ('analysis/spectrum.py', '_reading', 'abs(abs(z) - 1) <= 1e-2 -> abs(abs(z) - 1) < 0.01', 0):
        "|z| - 1 is exact for |z| in [0.5, 2] (Sterbenz) and never the double 0.01 (1 -+ 0.01 has bits below "
        "the ulp of 1): the two agree for every double",
    ('analysis/spectrum.py', '_reading', '1 -> 0', 7):
        "len(parts) >= 0 adds ', fixing a ...' also with no parts, and then the next line replaces the text "
        "(fixed and not parts)",
    ('analysis/spectrum.py', '_reading', 'period > 2 -> period >= 2', 0):
        "with period 2 every eigenvalue's order divides 2 (_order_dividing): no rotation among the parts, and a "
        "negation has returned before (the involutions), so parts is empty and the clause is skipped either way",
    ('analysis/spectrum.py', 'matrix_spectrum', '0 -> 1', 1):
        "M.shape[1] for M.shape[0]: M was checked square on the line before",
    ('analysis/spectrum.py', 'matrix_spectrum', '0 -> 1', 3):
        "rank 1 for a 0 x 0 matrix, which the next line sets to 0 (no entries: the condition is True)",
    ('analysis/spectrum.py', 'matrix_spectrum', 'True -> False', 0):
        "a 0 x 0 matrix keeps the rank 0 of the line before",
    ('analysis/spectrum.py', 'matrix_spectrum', 'rank > 0 -> rank >= 0', 0):
        "rank 0 only for the zero matrix (its largest singular value is at least its largest entry, above the "
        "rank tolerance): A^i and A^(i+p) are both 0, and _power_distance returns 0, no note",
    ('analysis/spectrum.py', 'matrix_spectrum', 'off > 64 * np.finfo(float).eps -> off >= 64 * np.finfo(float).eps', 0):
        "not proved equivalent: differs only for a distance of exactly 64 eps, to the last bit",
    ('analysis/spectrum.py', '_with_visited_orders', 'x <= 2 * min(dists) + 1e-12 -> x < 2 * min(dists) + 1e-12', 0):
        "not proved equivalent: differs only for a distance of exactly twice the least plus 1e-12, to the last bit",
    ('analysis/spectrum.py', 'spectrum', '12 -> 13', 0): _SPECTRUM_DEFAULT + " (max_order)",
    ('analysis/spectrum.py', 'spectrum', '2 -> 3', 0): _SPECTRUM_DEFAULT + " (word_length)",
    # the one-line verdict (analysis/implements.py)
    ('analysis/implements.py', 'mechanism_text', 'abs(z) > 1e-12 -> abs(z) >= 1e-12', 0):
        "not proved equivalent: differs only for an eigenvalue of modulus exactly 1e-12 of the spectral radius",
    ('analysis/implements.py', 'mechanism_text', '1 -> 0', 1):
        "range(0, k) adds j = 0, which gcd(0, k) = k > 1 excludes (k = 1 is skipped before)",
    ('analysis/implements.py', 'mechanism_text', 'angle > math.pi / (2 * k) -> angle >= math.pi / (2 * k)', 0):
        "not proved equivalent: differs only at an angle of exactly pi / (2k) to the nearest root, to the last bit",
    ('analysis/implements.py', 'mechanism_text', 'abs(z) < 0.99 -> abs(z) <= 0.99', 0):
        "not proved equivalent: differs only at a modulus of exactly 0.99 (the double nearest)",
    ('analysis/implements.py', 'mechanism_text', 'abs(z) < 0.99 -> abs(z) <= 0.99', 1):
        "not proved equivalent: as the mutant above, for a rotation's modulus",
    ('analysis/implements.py', '_worst_phase', 'abs(abs(z) - 1) > 0.05 -> abs(abs(z) - 1) >= 0.05', 0):
        "not proved equivalent: differs only at a modulus 0.05 from 1 to the last bit",
    ('analysis/implements.py', '_kind', 'src.index is not None and src.period is not None -> src.index is not None or src.period is not None', 0):
        "index and period come together from power_structure (both, or neither: its None)",
    ('analysis/implements.py', 'transitions_text', '1 -> 2', 1):
        "the kinds that are no order sort after the orders with key (2, k) as with (1, k)",
    ('analysis/implements.py', '_failure_line', 'image.n_states < automaton.n_states -> image.n_states <= automaton.n_states', 0):
        "a quotient with as many states as the target is the target's minimal automaton, which the isomorphic "
        "extraction handled before (an unreachable or duplicate state leaves the minimal image smaller)",
    ('analysis/implements.py', '_exact_verdict', '500 -> 501', 0):
        "not proved equivalent: the directed words in exact arithmetic one symbol longer; differs only for exact "
        "weights whose first exact failure among them is at length 501",
    ('analysis/implements.py', '_exact_verdict', '2 -> 3', 0):
        "not proved equivalent: a third of PROVE_SECONDS instead of half for the exact words; differs only where "
        "they run out of time between the two",
    ('analysis/external.py', 'failing_word', '256 -> 257', 0):
        "not proved equivalent: the seeded generator draws the same first 256 words of 64 symbols and one "
        "more; it differs only on a model whose shortest failure among them is on that 257th word alone",
    # the derived series listed element by element (constructions/handmade/cascade.py)
    ('constructions/handmade/cascade.py', '_listed_series', 'len(elements) > 1 -> len(elements) >= 1', 0):
        "a trivial term takes one more turn: its derived subgroup (no generators, the identity) has its one "
        "element, so the loop breaks with the same series",
    ('constructions/handmade/cascade.py', '_listed_series', '1 -> 0', 0):
        "len(elements) > 0 is len(elements) >= 1: as the mutant above",
    # Theorem 25's invariant cones (constructions/horizon/horizon_ray.py)
    ('constructions/horizon/horizon_ray.py', '_image', 'diff >= 0 -> diff > 0', 0):
        "at diff = 0 both branches return (angles[0], angles[0]): the same pair",
    ('constructions/horizon/horizon_ray.py', 'ray_cones', 'moved <= inflate * 1e-3 -> moved < inflate * 0.001', 0):
        "the arcs' movement equal to a thousandth of the margin, to the last bit (atan2 differences against a "
        "product by 1e-3): one sweep more, whose arcs _check then proves or refuses as any candidate's",
    # Theorem 23's projective orbit horizon (constructions/horizon/horizon_projective.py)
    ('constructions/horizon/horizon_projective.py', '_recurrence', 'V > vmax -> V >= vmax', 0):
        "every V is an exact point (hi) and so is v0 from every caller (bmax, hi, arb(0)): the two differ only at "
        "V equal to vmax, the same value",
    ('constructions/horizon/horizon_projective.py', '_restart_pairs', 'gz > 0 -> gz >= 0', 0):
        "gz == 0 raises on the line before: the two agree on every gz that reaches the sign",
    # its set-up and search heuristics (target horizon_projective_setup)
    ('constructions/horizon/horizon_projective.py', '_float_blocks', '1 -> 2', 0):
        "A.shape[2] for A.shape[1]: the matrices are square",
    ('constructions/horizon/horizon_projective.py', 'contracting_dropped', '0 -> 1', 0):
        "Pf.shape[1] for Pf.shape[0]: the basis (the snap's, or the identity) is square",
    ('constructions/horizon/horizon_projective.py', 'contracting_dropped', '0 -> 1', 2):
        "Pf.shape[1] for Pf.shape[0] (d, the new basis's size): the basis is square",
    ('constructions/horizon/horizon_projective.py', '_run', 'm < per[lab, c] -> m <= per[lab, c]', 0):
        "every margin is an exact point (lo()): a margin equal to the smallest so far keeps the same value",
    ('constructions/horizon/horizon_projective.py', '_front', 'j < i -> j <= i', 0):
        "the generator skips j == i (``if j != i``): j < i and j <= i agree on every j it reaches",
    ('constructions/horizon/horizon_projective.py', '_grid_search', '0 <= j < GRID -> 0 < j < GRID', 0):
        _GRID_EDGE,
    ('constructions/horizon/horizon_projective.py', '_grid_search', '0 -> 1', 14):
        _GRID_EDGE,
    ('constructions/horizon/horizon_projective.py', '_grid_search', '0 <= j < GRID -> 0 <= j <= GRID', 0):
        _GRID_EDGE,
    ('constructions/horizon/horizon_projective.py', '_grid_search', '0 -> 1', 8):
        "the second component of the first need is a placeholder: the next line replaces it by need[0] * ratio "
        "before anything reads it",
    ('constructions/horizon/horizon_projective.py', 'contracting_dropped', 'f < TARGET_RHO -> f <= TARGET_RHO', 0):
        "not proved equivalent: differs only where a float maximum is the double 0.8 exactly (never met in the "
        "tests' descents), and then takes one more descent step, kept only where it lowers the maximum; the "
        "basis it chooses is bounded afterwards in ball arithmetic, so no horizon is unsound either way",
    ('constructions/horizon/horizon_projective.py', 'contracting_dropped', 'step < 1e-6 -> step <= 1e-06', 0):
        "not proved equivalent: the step is 0.1 times powers of 1.5 and 1/2, rounded; it differs only where that "
        "is the double 1e-6 exactly, and then tries one more step (kept only where it lowers the maximum); the "
        "chosen basis is bounded afterwards in ball arithmetic",
    ('constructions/horizon/horizon_projective.py', 'contracting_dropped',
     'abs(np.linalg.det(trial)) > 1e-12 -> abs(np.linalg.det(trial)) >= 1e-12', 0):
        "not proved equivalent: differs only at a determinant of exactly 1e-12 for a trial of norm 1 (whose "
        "diagonal entries multiply to it); such a T is still invertible, and the basis it gives is bounded "
        "afterwards in ball arithmetic",
    # Theorem 22's gauge snap (constructions/horizon/gauge.py)
    ('constructions/horizon/gauge.py', '_moduli', 'x[:k] + 0.0 -> x[:k] - 0.0', 0):
        "differs only for a log scale of -0.0 (kept -0.0 instead of 0.0), which exp and -700 < x < 700 read as 0.0",
    ('constructions/horizon/gauge.py', '_moduli', 'x[k:] - x[k:].mean() -> x[k:] + x[k:].mean()', 0):
        "lstsq's least-norm solution is orthogonal to the null space, which holds a constant log |g| on each "
        "component of the graph on M: the mean is 0 up to rounding (1e-17), far below the basis's 2^-24",
    ('constructions/horizon/gauge.py', '_root', 'math.cos(phi) > 0 -> math.cos(phi) >= 0', 0):
        "a real cycle's phase is a sum of angles 0 and pi, wrapped: 0 or -pi up to rounding, where cos is +1 or -1",
    ('constructions/horizon/gauge.py', '_root', '1 -> 2', 0):
        _REAL_ROOT,
    ('constructions/horizon/gauge.py', '_root', '1 -> 2', 1):
        _REAL_ROOT,
    ('constructions/horizon/gauge.py', '_root', '2 -> 3', 0):
        _REAL_ROOT,
    ('constructions/horizon/gauge.py', '_wrap', 'x + math.pi -> x - math.pi', 0):
        "(x - pi) mod 2 pi = (x + pi) mod 2 pi: only the rounding of the sum differs (an ulp of 2 pi, 9e-16 rad), "
        "against windows of at least pi / 1152 = 0.0027 rad",
    ('constructions/horizon/gauge.py', '_phases', 'tree.add(e) -> pass', 0):
        "a forest edge's gauge-free phase is its angle less the angle it set, 0 up to rounding (1e-15 rad): "
        "_root gives it (0, 1), the forest's own root, anyway",
    ('constructions/horizon/gauge.py', 'regauged', 'False -> True', 0):
        "an object array of the same float entries (zeros as int 0): Weights converts A to float64, the start "
        "state and readout being float arrays, so the same weights",
    ('constructions/horizon/gauge.py', 'regauged', '1 -> 2', 3):
        'reshape(-2): numpy takes any negative size as the one unknown dimension',
    ('constructions/horizon/gauge.py', 'regauged', '1 -> 2', 5):
        'reshape(rows, -2): numpy takes any negative size as the one unknown dimension',
    # the orbit of one generator (constructions/proof/orbitproof.py)
    ('constructions/proof/orbitproof.py', '_orbit_of', '1 -> 2', 0):
        _ORBIT_STORE,
    ('constructions/proof/orbitproof.py', '_orbit_of', '1 -> 0', 0):
        _ORBIT_STORE,
    ('constructions/proof/orbitproof.py', '_orbit_of', '1 -> 2', 1):
        _ORBIT_STORE,
    ('constructions/proof/orbitproof.py', '_orbit_of', '1 -> 0', 1):
        _ORBIT_STORE,
    ('constructions/proof/orbitproof.py', '_orbit_of', 'time.monotonic() > clock.deadline -> time.monotonic() >= clock.deadline', 0):
        _AT_DEADLINE,
    ('constructions/proof/orbitproof.py', '_commutes', 'i == j -> i != j', 0):
        'the columns of J - I for the unit columns: a basis too for d >= 2 (J - I has eigenvalues d - 1 and -1), '
        'and 1 x 1 matrices always commute',
    ('constructions/proof/orbitproof.py', '_Levels.__init__', '1 -> 2', 0):
        'the sentinel -2 for -1: an entry of hid is only compared with < 0',
    ('constructions/proof/orbitproof.py', '_Levels.key', 'q * self.orbit.m + k -> q * self.orbit.m - k', 0):
        "key is called once, for the start pair, whose orbit index k is 0",
    ('constructions/proof/orbitproof.py', '_Levels.run', '1 -> 2', 0):
        _CHUNK_SIZE,
    ('constructions/proof/orbitproof.py', '_Levels.run', '_CHUNK // S -> _CHUNK * S', 0):
        _CHUNK_SIZE,
    ('constructions/proof/orbitproof.py', '_Levels._new_pairs', 'Q2 * self.orbit.m + K2 -> Q2 * self.orbit.m - K2', 0):
        "q m - k is as injective on 0 <= k < m as q m + k and agrees with key() on the start pair (k = 0); keys "
        "are only compared (the stream order comes from np.unique's first indices)",
    ('constructions/proof/orbitproof.py', '_Levels._new_pairs', 'True -> False', 1):
        "assume_unique=False: np.isin gives the same membership; both arrays are unique already (np.unique, np.union1d)",
    ('constructions/proof/orbitproof.py', '_Levels._new_pairs', 'self.hid[k2] < 0 -> self.hid[k2] <= 0', 0):
        _STORED_AGAIN,
    ('constructions/proof/orbitproof.py', '_Levels._new_pairs', '0 -> 1', 0):
        _STORED_AGAIN,
    # the float run's entrywise way (diagonal matrices) (issue 48): where a count or a buffer size changes, the numbers do not
    ('constructions/values/floatrun.py', '_method', '1 -> 2', 0):
        'A.shape[2] for A.shape[1]: the matrices are square',
    ('constructions/values/floatrun.py', '_off_diagonal', '1 -> 2', 0):
        'reshape(-2): numpy takes any negative size as the one unknown dimension',
    ('constructions/values/floatrun.py', '_entrywise_span', '1 -> 2', 1):
        'max(2, batch x hidden): differs only for batch x hidden = 1, whose span _SLOT_STEPS caps at 64 either way',
    ('constructions/values/floatrun.py', '_chunked', 'chunk.clear() -> pass', 0):
        "update() replaces both keys: clear() only frees the last span's grouping before the next is made (memory)",
    # the depth bound (issue 48, round 11)
    ('constructions/impossible/depth.py', '_omega', '2 -> 3', 0):
        'powers sized 3n + 1 rather than 2n + 1: the rows past 2n are never written or read',
    ('constructions/impossible/depth.py', '_omega', '1 -> 2', 0):
        'powers sized 2n + 2 rather than 2n + 1: the last row is never written or read',
    ('constructions/impossible/depth.py', '_omega', 'n + j -> n - j', 0):
        "z^(n-j) for z^(n+j): the least j >= 1 with z^(n-j)(q) = z^n(q) is also q's cycle length L: q's tail and cycle are tail + L <= n distinct points, so z^(n-L)(q) is on the cycle, and a smaller j is no multiple of L",
    # a cell's phases (issue 48, round 12)
    ('constructions/settle.py', '_smallest_count', '1 -> 2', 2):
        _SAME_TRIED,
    ('constructions/settle.py', '_smallest_count', '1 -> 0', 2):
        _SAME_TRIED,
    ('constructions/settle.py', '_settle_stack', 'layers < info.frattini_length -> layers <= info.frattini_length', 0):
        "the branch is taken only when the depth bound excludes the layers (excludes() == 'open'), not by Theorem "
        "S4; with layers = the Frattini length, Theorem S6 does not exclude them, and the derived length, at most "
        "the Frattini length, does not either (Theorem S3): never taken with equality",
    ('constructions/settle.py', '_settle_layer', '1 -> 2', 0):
        _FIRST_ONE,
    ('constructions/settle.py', '_settle_layer', '1 -> 0', 0):
        _FIRST_ONE,
    ('constructions/proof/verdicts.py', 'to_scalar', 'True -> False', 0):
        'reduced=False reduces the polynomial modulo the cyclotomic one again: the same element',
    ('constructions/horizon/axes.py', 'axis_pairs', 'h0[k0] > 0 -> h0[k0] >= 0', 0):
        "k0 is h0's one non-zero coordinate: h0[k0] is never 0",
    ('constructions/horizon/axes.py', 'axis_pairs', 'A[a, j, k] > 0 -> A[a, j, k] >= 0', 0):
        "j is the row of column k's non-zero entry: A[a, j, k] is never 0",
    # the exact run of the directed words (round 12)
    ('constructions/horizon/exactwords.py', 'exact_failure', 'first[i] < 0 -> first[i] <= 0', 0):
        _EMPTY_WORD,
    ('constructions/horizon/exactwords.py', 'exact_failure', '0 -> 1', 0):
        _EMPTY_WORD,
    ('constructions/horizon/exactwords.py', 'exact_failure', 'first[i] < 0 -> first[i] <= 0', 1):
        _EMPTY_WORD,
    ('constructions/horizon/exactwords.py', 'exact_failure', '0 -> 1', 1):
        _EMPTY_WORD,
    ('constructions/horizon/exactwords.py', 'exact_failure', 'time.monotonic() > deadline -> time.monotonic() >= deadline', 0):
        _AT_DEADLINE,
    ('constructions/horizon/exactwords.py', '_first_wrong', 'time.monotonic() > deadline -> time.monotonic() >= deadline', 0):
        _AT_DEADLINE,
    ('constructions/horizon/exactwords.py', '_primitive', 'g <= 1 -> g < 1', 0):
        _GCD_ONE,
    ('constructions/horizon/exactwords.py', '_primitive', '1 -> 0', 0):
        _GCD_ONE,
    ('constructions/horizon/exactwords.py', '_scaled', 'e > 0 -> e >= 0', 0):
        _EXPONENT,
    ('constructions/horizon/exactwords.py', '_scaled', '0 -> 1', 0):
        _EXPONENT,
    ('constructions/horizon/exactwords.py', '_sign', 'x < 0 -> x <= 0', 0):
        _SIGN_ZERO,
    ('constructions/horizon/exactwords.py', '_sign', '0 -> 1', 1):
        _SIGN_ZERO,
    ('constructions/horizon/exactwords.py', '_argmax', '1 -> 0', 0):
        'the loop also compares class 0 with itself: a zero difference moves nothing',
    ('constructions/horizon/exactwords.py', '_argmax', '_sign(scores[c] - scores[best]) > 0 -> _sign(scores[c] - scores[best]) >= 0', 0):
        'an equal score moves best to the later class; a tie at the top is None by _strict either way, and a unique maximum is reached either way',
    # Theorem 19's orbit horizon (constructions/horizon/horizon_orbit.py)
    ('constructions/horizon/horizon_orbit.py', 'iterate_orbit', 'c.rho < 1 -> c.rho <= 1', 0):
        "rho = 1 exactly sent to the closed form: r = beta / (1 - rho) = beta / 0 is NaN in arb (0 / 0 too), "
        "so every pair's cap on W divides by a NaN, lo() makes it -inf, w_max > W fails and the closed form "
        "adds 0 steps: max(STEPPED, s + 1), the stepped-only answer",
    ('constructions/horizon/horizon_orbit.py', '_closed_form_orbit', 'low > 0 -> low >= 0', 0):
        _ORBIT_LOW,
    ('constructions/horizon/horizon_orbit.py', '_closed_form_orbit', '0 -> 1', 1):
        _ORBIT_LOW,
    ('constructions/horizon/horizon_orbit.py', '_closed_form_orbit', '0 -> 1', 2):
        "the branch of an X that is not finite, never reached from orbit_horizon: there w_max > W >= Ymax > 0 "
        "are finite (lo() is -inf or finite, W an upper end), g >= 0 and a > 0 finite (rho < 1, the constants "
        "are norms of finite matrices), so the ratio is finite and > 1, and N >= 1 (the identity is a product; "
        "N is an upper bound on its norm) makes log1p(N a) a positive ball; iterate_orbit is called only by "
        "orbit_horizon (horizon_projective imports the orbit and the constants, not the recurrence)",
    ('constructions/horizon/horizon_orbit.py', '_closed_form_orbit', 'low > CAP -> low >= CAP', 0):
        "lo(X) equal to 10^18 to the last of its 128 bits, X a quotient of two logarithms; and there both "
        "answers are sound (low >= CAP certifies CAP steps)",
    ('constructions/horizon/horizon_orbit.py', 'orbit_ingredients', 'm < mu -> m <= mu', 0):
        _ORBIT_MIN,
    ('constructions/horizon/horizon_orbit.py', 'orbit_ingredients', 'm < per[lab, c] -> m <= per[lab, c]', 0):
        _ORBIT_MIN,
    ('constructions/horizon/horizon_orbit.py', 'orbit_ingredients', 'x0 + column([flint.arb(0, start)] * d) -> x0 - column([flint.arb(0, start)] * d)', 0):
        "a ball centred on exactly 0 subtracted instead of added: the same midpoints and the same radii (arb adds "
        "the radii either way)",
    # the block-wise horizon, Theorem 16 block by block (constructions/horizon/horizon_blocks.py)
    ('constructions/horizon/horizon_blocks.py', '_block_constants', '0 -> 1', 0):
        "sigma's maximum started at 1: with c the least-squares scale, <N, S> = |S|^2 up to c's rounding, so "
        "||N||_F >= ||S||_F and ||N|| >= 1 - 2^-52 for an orthogonal S (1x1: N = +-1 exactly); the start moves "
        "sigma by at most 2^-52, upward, below the balls' own rounding of every step, and sigma <= 1 picks the "
        "same closed form",
    ('constructions/horizon/horizon_blocks.py', '_block_margins', 'v < m -> v <= m', 0):
        "a margin equal to the smallest so far: both are exact points (lo()'s lower ends), the same minimum",
    ('constructions/horizon/horizon_blocks.py', '_step', 'o + flint.arb(0, _hi(ro.step * r + under)) -> o - flint.arb(0, _hi(ro.step * r + under))', 0):
        _BALL_AROUND_ZERO,
    ('constructions/horizon/horizon_blocks.py', '_blockwise', '_arb(x) + flint.arb(0, _hi(ro.start * abs(_arb(x)) + ro.start_underflow * h0_norm)) -> '
                          '_arb(x) - flint.arb(0, _hi(ro.start * abs(_arb(x)) + ro.start_underflow * h0_norm))', 0):
        _BALL_AROUND_ZERO,
    ('constructions/horizon/horizon_blocks.py', '_run_bound', '1 -> 2', 0):
        "the loop's one more t = STEPPED + 1 checks the same (u, r) as t = STEPPED (nothing is stepped at "
        "STEPPED): it fails there only where t = STEPPED failed first",
    ('constructions/horizon/horizon_blocks.py', '_run_bound', 'theta[j] <= 1 -> theta[j] < 1', 0):
        "theta = 1 exactly: exp(k log 1) = exp(0) = 1 exactly, the same factor as the branch's 1",
    ('constructions/horizon/horizon_blocks.py', '_run_bound', '1 -> 2', 7):
        _BLOCK_GALLOP,
    ('constructions/horizon/horizon_blocks.py', '_run_bound', '2 -> 3', 0):
        _BLOCK_GALLOP,
    ('constructions/horizon/horizon_blocks.py', '_per_block', '1 -> 2', 0):
        "Af.shape[2] for Af.shape[1]: the matrices are square",
    ('constructions/horizon/horizon_blocks.py', '_blockwise', '0 -> 1', 7):
        "w0's branch for y_norm = 0, never taken: a candidate block's y_norm is > 0 (the reason below)",
    ('constructions/horizon/horizon_blocks.py', '_blockwise', '1 -> 2', 2):
        "one more good set, order[:len + 1], is the whole order again: the same T, and a tie keeps the earlier",
    ('constructions/horizon/horizon_blocks.py', '_blockwise', 'y_norm[i] > 0 -> y_norm[i] >= 0', 0):
        "a candidate block has a margin on every reachable hidden direction, the start's too (a nonzero multiple "
        "of the snap's h0: _block_margins gives None where one vanishes), so h0 does not vanish on it: y_norm > 0",
    # Theorem 24's phase horizon (constructions/horizon/horizon_phase.py)
    ('constructions/horizon/horizon_phase.py', 'phase_horizon', '1 -> 2', 0):
        'A.shape[2] for A.shape[1]: the matrices are square',
    ('constructions/horizon/horizon_phase.py', '_box', '1 -> 2', 0):
        'A.shape[2] for A.shape[1]: the matrices are square',
    ('constructions/horizon/horizon_phase.py', '_phase', '0 -> 1', 3):
        _PHASE_GUESS,
    ('constructions/horizon/horizon_phase.py', '_phase', 'T < CAP -> T <= CAP', 0):
        'at T = CAP the balls just held at CAP + 1, and the bisection from CAP + 1 to CAP returns CAP',
    ('constructions/horizon/horizon_phase.py', '_phase', 'T + 1 -> T - 1', 1):
        "the balls' bisection past the guess started at T - 1: it holds there too (T was proved, and T + 1), "
        "so the same largest length for a condition monotone in t",
    ('constructions/horizon/horizon_phase.py', '_phase', '1 -> 0', 2):
        "the balls' bisection past the guess started at T, just proved: the same largest length",
    ('constructions/horizon/horizon_phase.py', '_box', 'not ro.exact and ro.underflow > 0 -> not ro.exact or ro.underflow > 0', 0):
        _PHASE_UNDERFLOW,
    ('constructions/horizon/horizon_phase.py', '_box', 'ro.underflow > 0 -> ro.underflow >= 0', 0):
        _PHASE_UNDERFLOW,
    ('constructions/horizon/horizon_phase.py', '_box', 'alpha.abs_lower() > 0 -> alpha.abs_lower() >= 0', 0):
        "|alpha|'s lower bound 0: kappa is then a division by 0 (arb: nan; hi: +inf), which kappa < 1 refuses "
        "on the next line",
    ('constructions/horizon/horizon_phase.py', '_box', 'max(mids) + min(mids) -> max(mids) - min(mids)', 1):
        _PHASE_CENTRE,
    ('constructions/horizon/horizon_phase.py', '_box', '2 -> 3', 2):
        _PHASE_CENTRE,
    ('constructions/horizon/horizon_phase.py', '_box', 'x - centre -> x + centre', 1):
        _PHASE_CENTRE,
    ('constructions/horizon/horizon_phase.py', '_top', 'y > x -> y >= x', 0):
        'every value compared is an exact point (hi, or arb(0)): y >= x and not y > x only where y == x, the '
        'same value',
    ('constructions/horizon/horizon_phase.py', '_theta', 'z.abs_lower() > 0 -> z.abs_lower() >= 0', 0):
        "z's ball reaches 0: either z is exactly 0, so K = 0 and v = K cos - tau |y| whatever theta, or acb's "
        "arg z is [+/- 3.15], whose upper end passes pi: the cosine is -1, as for theta = pi",
    ('constructions/horizon/horizon_phase.py', '_holds', 'angle < pi -> angle <= pi', 0):
        "angle is an exact point and pi the ball of an irrational number: they differ only at angle = pi's "
        "lower end, to the last of 128 bits, where both -1 and the lower end of cos(angle) bound the cosine",
    ('constructions/horizon/horizon_phase.py', '_holds', 'v >= 0 -> v > 0', 0):
        'v is an exact point (lo): at v = 0 both factors give the product 0',
    ('constructions/horizon/horizon_phase.py', '_holds', 'lam_lo[j] * yl[j] * flint.arb(2) ** bits >= whole -> lam_lo[j] * yl[j] * flint.arb(2) ** bits > whole', 0):
        "the two sides equal to the last bit: not with exact factors (a followed block's |y| is at least 2^-24 "
        "of the largest, the snapped start's dyadics, far inside 2^40), and otherwise the factors are "
        "exponentials of non-zero exact points, balls of irrational numbers",
    ('constructions/horizon/horizon_phase.py', '_Floats.holds', 'angle < math.pi -> angle <= math.pi', 0):
        "at angle = pi (the float) np.cos gives -1.0, the other branch's value",
    ('constructions/horizon/horizon_phase.py', '_bisect', '1 -> 2', 0):
        _GALLOP,
    ('constructions/horizon/horizon_phase.py', '_bisect', 'start + step < stop -> start + step <= stop', 0):
        'at start + step = stop it asks ok(stop) again, false (asked first): the same top',
    ('constructions/horizon/horizon_phase.py', '_bisect', '2 -> 3', 0):
        _GALLOP,
    # the float check's inputs, blocks and result (issue 48, round 11)
    ('constructions/horizon/floatcheck.py', '_cycled', 'length // len(u) -> length * len(u)', 0):
        'more copies of u, cut to the same length',
    ('constructions/horizon/floatcheck.py', '_cycled', '1 -> 2', 0):
        'one more copy of u, cut to the same length',
    ('constructions/horizon/floatcheck.py', 'directed_words', 'length - len(head) -> length + len(head)', 0):
        'a longer cycled loop, cut to the same length',
    ('constructions/horizon/floatcheck.py', '_score_blocks', '1 -> 2', 1):
        'A.shape[2] for A.shape[1]: the matrices are square',
    ('constructions/horizon/floatcheck.py', '_score_blocks', '0 -> 1', 0):
        'the block size only: the same prefixes judged with the same rows (up to exact powers of two); with the many-class bound, where it gives up after MISSES blocks, the worst margin moves by at most WORST_TOL x rho',
    ('constructions/horizon/floatcheck.py', '_score_blocks', '0 -> 1', 1):
        'the block size only: the same prefixes judged with the same rows (up to exact powers of two); with the many-class bound, where it gives up after MISSES blocks, the worst margin moves by at most WORST_TOL x rho',
    ('constructions/horizon/floatcheck.py', '_score_blocks', '8 -> 9', 0):
        'the block size only: the same prefixes judged with the same rows (up to exact powers of two); with the many-class bound, where it gives up after MISSES blocks, the worst margin moves by at most WORST_TOL x rho',
    ('constructions/horizon/floatcheck.py', '_score_blocks', '1 -> 2', 2):
        'A.shape[2] for A.shape[1]: the matrices are square',
    ('constructions/horizon/floatcheck.py', '_score_blocks', '1 -> 2', 3):
        'reshape(-2, ...): numpy takes any negative size as the one unknown dimension',
    ('constructions/horizon/floatcheck.py', '_score_blocks', '1 -> 2', 4):
        'A.shape[2] for A.shape[1]: the matrices are square',
    ('constructions/horizon/floatcheck.py', '_score_blocks', '0 -> 1', 8):
        "a tracker's blocks sized by the length instead of the words: the block size only, the same prefixes judged",
    ('constructions/horizon/floatcheck.py', '_judge_states', '1 -> 2', 0):
        'reshape(-2): numpy takes any negative size as the one unknown dimension',
    ('constructions/horizon/floatcheck.py', '_judge_states', '1 -> 2', 1):
        'reshape(-2): numpy takes any negative size as the one unknown dimension',
    ('constructions/horizon/floatcheck.py', '_judge_states', '1 -> 2', 3):
        'reshape(-2): numpy takes any negative size as the one unknown dimension',
    ('constructions/horizon/floatcheck.py', 'check', 'not isinstance(weights, _NETWORKS) and hasattr(weights, "to_weights") -> not isinstance(weights, _NETWORKS) or hasattr(weights, \'to_weights\')', 0):
        'Weights and Stack values have no to_weights, so they skip the branch either way; any other model entering it without to_weights comes back itself (its tracker has no weights)',
    # derive_dplr's rank of a decomposed candidate
    ('constructions/values/factored.py', 'derive_dplr', '0 -> 1', 1):
        "uw[1].shape[1] for uw[0].shape[1]: U and W of a rank decomposition have the same r columns",
    # dplr_count (round of 2026-12-07, afternoon)
    ('constructions/values/factored.py', 'dplr_count', '1 -> 2', 0):
        "A.shape[2] for A.shape[1]: the matrices are square (its one caller, settle's count_needed, passes a Weights' "
        "A of shape (S, d, d), and derive_dplr reads d from A.shape[1] itself)",
    # the kept exact compositions (constructions/values/linalg.py, rational_householder): how many are kept and which
    # goes first change the time, not a matrix
    ('constructions/values/linalg.py', 'rational_householder', '_COMPOSED.move_to_end(key) -> pass', 0):
        "first in, first out instead of least recently used: a miss composes again, the same exact matrix",
    # the rescaling's products by 2^-e (this round): the threshold only picks between two ways to the same numbers
    ('constructions/values/floatrun.py', '_rescale', 'least >= -1020 -> least > -1020', 0):
        'at e = -1020 the power 2^1020 is finite, so the product gives the number ldexp gives: either way the same rows (the product is right for every e >= -1023)',
    ('constructions/values/floatrun.py', '_rescale', '1020 -> 1021', 0):
        'at e = -1021 the power 2^1021 is finite, so the product gives the number ldexp gives: either way the same rows (the product is right for every e >= -1023)',
    # the float run's stacked and grouped ways, spans and rescaling (issue 48, round 11): sizes that change memory, not numbers
    ('constructions/values/floatrun.py', 'rescale_span', '0 -> 1', 0):
        'g > 1 for g > 0: for 0 < g <= 1, floor(2 RESCALE_FLOOR / g) >= 120 > RESCALE_SPAN, which min() gives either way',
    ('constructions/values/floatrun.py', 'float_blocks', '0 -> 1', 0):
        '_start(A, h0, 1) for 0 rows: float_blocks discards the tiled start rows (its own start is start_row)',
    ('constructions/values/floatrun.py', 'float_blocks', '1 -> 2', 2):
        'A.shape[2] for A.shape[1]: the matrices are square',
    ('constructions/values/floatrun.py', '_stepper', '1 -> 2', 0):
        'A.shape[2] for A.shape[1]: the matrices are square',
    ('constructions/values/floatrun.py', '_stepper', '1 -> 2', 3):
        'reshape(d, -2): numpy takes any negative size as the one unknown dimension',
    ('constructions/values/floatrun.py', '_stepper', '0 -> 1', 6):
        "the grouped way's first buffer np.empty(1): any grouping needs at least 1 entry, and one of exactly 1 (1 symbol, 1 word, 1 unit) is filled by the gather before the product reads it; else it is replaced (memory only)",
    ('constructions/values/floatrun.py', '_stepper', '0 -> 1', 7):
        'the product buffer np.empty(1): written whole by the product before it is read, or replaced (memory only)',
    ('constructions/values/floatrun.py', '_stepper', 'room[0].size < k * groups * d -> room[0].size <= k * groups * d', 0):
        'a buffer exactly the size needed is replaced by a larger one: memory only, the same numbers',
    ('constructions/values/floatrun.py', '_stepper', '0 -> 1', 8):
        'room[1].size for room[0].size: the two buffers are always made the same size',
    ('constructions/values/floatrun.py', '_stepper', 'k * groups * d -> k * groups // d', 2):
        "the grouped way's kept buffer: the size is still at least the k x groups x d entries needed (max with that), so only its spare room changes (memory), not the numbers",
    ('constructions/values/floatrun.py', '_stepper', 'k * groups -> k // groups', 2):
        "the grouped way's kept buffer: the size is still at least the k x groups x d entries needed (max with that), so only its spare room changes (memory), not the numbers",
    ('constructions/values/floatrun.py', '_stepper', 'k * (groups + groups // 4 + 1) * d -> k * (groups + groups // 4 + 1) // d', 0):
        "the grouped way's kept buffer: the size is still at least the k x groups x d entries needed (max with that), so only its spare room changes (memory), not the numbers",
    ('constructions/values/floatrun.py', '_stepper', 'k * (groups + groups // 4 + 1) -> k // (groups + groups // 4 + 1)', 0):
        "the grouped way's kept buffer: the size is still at least the k x groups x d entries needed (max with that), so only its spare room changes (memory), not the numbers",
    ('constructions/values/floatrun.py', '_stepper', 'groups + groups // 4 + 1 -> groups + groups // 4 - 1', 0):
        "the grouped way's kept buffer: the size is still at least the k x groups x d entries needed (max with that), so only its spare room changes (memory), not the numbers",
    ('constructions/values/floatrun.py', '_stepper', 'groups + groups // 4 -> groups - groups // 4', 0):
        "the grouped way's kept buffer: the size is still at least the k x groups x d entries needed (max with that), so only its spare room changes (memory), not the numbers",
    ('constructions/values/floatrun.py', '_stepper', 'groups // 4 -> groups * 4', 0):
        "the grouped way's kept buffer: the size is still at least the k x groups x d entries needed (max with that), so only its spare room changes (memory), not the numbers",
    ('constructions/values/floatrun.py', '_stepper', '4 -> 5', 0):
        "the grouped way's kept buffer: the size is still at least the k x groups x d entries needed (max with that), so only its spare room changes (memory), not the numbers",
    ('constructions/values/floatrun.py', '_stepper', '1 -> 2', 4):
        "the grouped way's kept buffer: the size is still at least the k x groups x d entries needed (max with that), so only its spare room changes (memory), not the numbers",
    ('constructions/values/floatrun.py', '_stepper', '1 -> 0', 4):
        "the grouped way's kept buffer: the size is still at least the k x groups x d entries needed (max with that), so only its spare room changes (memory), not the numbers",
    ('constructions/values/floatrun.py', '_stepper', '1 -> 2', 5):
        'reshape(-2, d): numpy takes any negative size as the one unknown dimension',
    ('constructions/values/floatrun.py', '_stepper', '1 -> 2', 6):
        'reshape(-2, d): numpy takes any negative size as the one unknown dimension',
    ('constructions/values/floatrun.py', '_slot_steps', '1 -> 2', 1):
        'max(2, batch) for max(1, batch): differs only for a batch of 0 or 1 word, where 16384 // 1 and 16384 // 2 both exceed _SLOT_STEPS',
    ('constructions/values/floatrun.py', '_slots', 'k <= 256 -> k < 256', 0):
        '256 symbols sorted as 64-bit integers rather than bytes: the same stable order (speed only)',
    ('constructions/values/floatrun.py', '_slots', '1 -> 2', 1):
        'reshape(-2): numpy takes any negative size as the one unknown dimension',
    ('constructions/values/floatrun.py', '_slots', '1 -> 2', 2):
        'reshape(-2): numpy takes any negative size as the one unknown dimension',
    ('constructions/values/floatrun.py', '_entrywise_stepper', '1 -> 0', 1):
        'the span sized by the symbol count for the hidden size: a buffer of another size (memory only), the same numbers',
    # certify --from (analysis/certify_external.py): float boundaries and the bisection's own parameters
    ('analysis/certify_external.py', '_snap_key', 'abs(angle - m * 2 * math.pi / _ANGLES) > tol -> abs(angle - m * 2 * math.pi / _ANGLES) >= tol', 0):
        'a float distance exactly equal to the tolerance does not arise',
    ('analysis/certify_external.py', 'snap_heads', 'np.max(np.abs(h.gate - 1.0)) > tol -> np.max(np.abs(h.gate - 1.0)) >= tol', 0):
        'a float distance exactly equal to the tolerance does not arise',
    ('analysis/certify_external.py', 'snap_heads', 'abs(h.beta[s, j] - bj) > tol -> abs(h.beta[s, j] - bj) >= tol', 0):
        'a float distance exactly equal to the tolerance does not arise',
    ('analysis/certify_external.py', '_check_edges', 'm < low -> m <= low', 0):
        'ties: another edge with the same smallest margin, an equally valid witness',
    ('analysis/certify_external.py', 'horizon', '10 -> 11', 0):
        'the cap on the certified length (10**12) is never reached by a bound of this size',
    ('analysis/certify_external.py', 'horizon', '12 -> 13', 0):
        'the cap on the certified length (10**12) is never reached by a bound of this size',
    ('analysis/certify_external.py', 'horizon', '0 -> 1', 2):
        'the maxima of key norms (L2-normalised: 1 up to rounding), value norms and betas start at 1 instead of 0: at most a larger, still valid bound',
    ('analysis/certify_external.py', 'horizon', 'low > 0 -> low >= 0', 0):
        "a ball's lower end exactly 0 does not arise from these head evaluations",
    ('analysis/certify_external.py', 'horizon', 'float(M) + 1.0 -> float(M) - 1.0', 0):
        "the bisection's upper end: any value above the largest valid radius gives the same bisection result within its tolerance",
    ('analysis/certify_external.py', 'horizon', '30 -> 31', 0):
        'the bisection stops on its tolerance before 30 steps',
    ('analysis/certify_external.py', 'horizon', 'lo_r > 0 -> lo_r >= 0', 0):
        'the first probe of the bisection: the result stays within the tolerance of the largest valid radius',
    ('analysis/certify_external.py', 'horizon', '2 -> 3', 0):
        'a bisection split at a third still converges to the largest valid radius within the tolerance',
    ('analysis/certify_external.py', 'horizon', '1024 -> 1025', 0):
        'the first probe of the bisection: the result stays within the tolerance of the largest valid radius',
    ('analysis/certify_external.py', 'horizon', 'm > 0 -> m >= 0', 0):
        "a ball's lower end exactly 0 does not arise from these head evaluations",
    ('analysis/certify_external.py', 'horizon', 'hi_r - lo_r <= 1e-3 * hi_r -> hi_r - lo_r < 0.001 * hi_r', 0):
        "the stopping rule's boundary: equality of floats does not arise",
    ('analysis/certify_external.py', 'horizon', 'hi_r - lo_r -> hi_r + lo_r', 0):
        'the bisection then runs all 30 steps: a radius at least as close to the largest valid one, the same guarantee',
    ('analysis/certify_external.py', 'horizon', '1e-3 * hi_r -> 0.001 // hi_r', 0):
        'the bisection then runs all 30 steps: a radius at least as close to the largest valid one, the same guarantee',
    # the head's norms on a ball (analysis/external_head.py, Theorem A7's norm lemma)
    ('analysis/external_head.py', 'HeadBalls._normalise', '0 -> 1', 0):
        'skips the norm lemma for point inputs only to save work: at a point its ball holds the operation-by-operation one\'s value too, and the intersection of two valid enclosures is valid',
    ('analysis/external_head.py', 'HeadBalls._normalise_lipschitz', 'gap > 0 -> gap >= 0', 0):
        'at gap = 0 both branches square 0',
    ('analysis/external_head.py', 'HeadBalls._normalise_lipschitz', 'ci / centre + flint.arb(0, 1) * lip -> ci / centre - flint.arb(0, 1) * lip', 0):
        'the ball [-lip, lip] is symmetric',
    ('analysis/external_head.py', 'step_rounding', 'float(P.upper()) < largest(r.name) / 4 -> float(P.upper()) <= largest(r.name) / 4', 0):
        'a bound P exactly a quarter of the largest number does not arise',
    ('analysis/external_head.py', 'margin', '1 -> 0', 1):
        'the minimum over diffs[0:] instead of diffs[1:] compares the first difference with itself',
    ('analysis/external_head.py', 'margin', 'd < low -> d <= low', 0):
        'ties: the minimum has the same value',
    ('analysis/certify_external.py', '_length', 'L > 0 -> L >= 0', 0):
        'at L = 0 the bound c ((1 + a)^0 - 1) / a is 0, within any radius: the loop stops either way',
    ('analysis/certify_external.py', '_length', '_grown(a, c, L) <= arb(radius) -> _grown(a, c, L) < arb(radius)', 0):
        'a bound exactly equal to the radius (an exact ball) does not arise',
    # the ball search of certify --from (analysis/certify_balls.py, Theorem A8)
    ('analysis/certify_balls.py', '_Ball.entries', 'C[a, e] + flint.arb(0, 1) * self.radius -> C[a, e] - flint.arb(0, 1) * self.radius', 0):
        'the ball [-r, r] is symmetric: C - [-r, r] is C + [-r, r]',
    ('analysis/certify_balls.py', '_inside', 'frob(S.centre - B.centre) + S.radius <= B.radius -> frob(S.centre - B.centre) + S.radius < B.radius', 0):
        'refuses a containment only at exact equality of two balls: sound either way (a kept node is expanded), and equality does not arise',
    ('analysis/certify_balls.py', 'ball_horizon', '1 -> 2', 0):
        "the start node's last-token sentinel -1 is never read",
    ('analysis/certify_balls.py', 'ball_horizon', '1 -> 0', 0):
        "the start node's last-token sentinel -1 is never read",
    ('analysis/certify_balls.py', 'ball_horizon', 'margin(head.logits([X.entries() for X in T], tokens[s]), int(automaton.labels[q2])) > 0 -> margin(head.logits([X.entries() for X in T], tokens[s]), int(automaton.labels[q2])) >= 0', 0):
        "a margin's lower bound exactly 0 does not arise from these head evaluations",
    ('automata/closure.py', '_closure', '1 -> 2', 4):
        'a chunk of at least two frontier elements: memory per step, not the result',
    ('automata/closure.py', '_closure', '1 -> 0', 4):
        'max(0, _CHUNK_ENTRIES // (k n)) = max(1, ...) unless states x symbols exceeds 2^23 entries per element',
    ('automata/minimize.py', 'access_words', '1 -> 2', 6):
        'reshape(-2): numpy infers any negative size, as it does -1',
    ('automata/minimize.py', 'access_words', 'size > level_size -> size >= level_size', 0):
        'a level that found nothing concatenates its empty chunks: the frontier is empty either way',
    ('automata/closure.py', '_closure', '1 -> 2', 0):
        'max_rows below 2 needs more than 1 GiB per element (2^27 symbols): such an automaton is refused before',
    ('automata/closure.py', '_closure', '1 -> 0', 0):
        'max_rows below 1 needs more than 2 GiB per element (2^28 symbols): such an automaton is refused before',
    ('automata/minimize.py', 'access_words', '1 -> 2', 0):
        'unvisited states are marked by any negative position: only position < 0 is ever read',
    ('automata/minimize.py', 'access_words', '0 -> 1', 0):
        "the start's position is only read as visited (>= 0)",
    ('automata/minimize.py', 'access_words', '1 -> 2', 4):
        'a chunk of at least two parents: the chunk size changes memory, not the result',
    ('automata/minimize.py', 'access_words', 'ACCESS_CHUNK_ENTRIES // k -> ACCESS_CHUNK_ENTRIES * k', 0):
        'the chunk size changes memory, not the result (tests shrink it to 1 entry)',
    ('automata/minimize.py', 'access_words', 'frontier.size * k < ACCESS_NARROW_LEVEL -> frontier.size * k <= ACCESS_NARROW_LEVEL', 0):
        'which path walks a level: both give the same states and words (tested with the threshold at 0)',
    ('automata/minimize.py', 'access_words', 'frontier.size * k -> frontier.size // k', 0):
        'which path walks a level: both give the same states and words (tested with the threshold at 0)',
    ('automata/closure.py', '_Keys.__init__', 'False -> True', 0):
        'the default of exact: _closure always passes exact= itself',
    ('automata/closure.py', '_Keys.__init__', 'values > 1 -> values >= 1', 0):
        'values = 1: max(1, ceil(log2 1)) = max(1, 0) = 1, the else branch',
    ('automata/closure.py', '_Keys.__init__', '1 -> 2', 0):
        'max(2, ceil(log2 values)) differs from max(1, ...) only at values = 2: 2 bits a state instead of 1, a packing as injective (or past 63 bits a hash checked against the rows): the same closure',
    ('automata/closure.py', '_Keys.__init__', '1 -> 0', 0):
        'for n > 1, ceil(log2 n) >= 1: the max with 1 or 0 is the same',
    ('automata/closure.py', '_Clock.tick', 'now - self.start -> now + self.start', 1):
        'the progress test since the start is implied by the one since the last line (last >= start)',
    # the closure's rounds of codes (automata/closure.py, issue 48)
    ('automata/closure.py', '_Search.code_round', 'chain[1] == lo -> chain[1] != lo', 0):
        'which runs of rounds share one chain [lo, hi, first, end] of finish_rounds: any split or merge of runs gives the same arrays (the elements first..end of a chain have their shortlex parents in lo..hi whether the chain is one round or several, and the right rows it recomputes are the ones level wrote); time only',
    ('automata/closure.py', '_Search.finish_rounds', '1 -> 2', 1):
        'reshape(-2): numpy takes any negative size as the one unknown dimension',
    ('automata/closure.py', '_Search.finish_rounds', '1 -> 2', 2):
        'reshape(-2): numpy takes any negative size as the one unknown dimension',
    ('automata/closure.py', '_closure', '1 -> 0', 6):
        'the first frontier (the identity alone) is not smaller than a last size of 0 or of 1: the same first round',
    ('automata/closure.py', '_closure', 'levels > 1 -> levels >= 1', 0):
        'a round of one level by code_round instead of level: the same candidates, numbering and right rows (finish_rounds fills them for a chain of one level); the frontier is not cut in chunks, memory only',
    ('automata/closure.py', '_closure', '1 -> 0', 8):
        'a round of one level by code_round instead of level: the same candidates, numbering and right rows (finish_rounds fills them for a chain of one level); the frontier is not cut in chunks, memory only',
    ('automata/closure.py', '_closure', 'levels > 1 -> levels >= 1', 1):
        'a round of one level on the whole frontier instead of chunks of it: the same candidates in the same order; memory only',
    ('automata/closure.py', '_closure', '1 -> 0', 9):
        'a round of one level on the whole frontier instead of chunks of it: the same candidates in the same order; memory only',
    ('automata/codetables.py', '_chunk_table', '1 -> 2', 1):
        'the table of no digits is read only at row 0 (the high part of a one-state code): a second row of zeros is never read',
    ('automata/codetables.py', '_chunk_table', '1 -> 2', 5):
        'reshape(-2): numpy takes any negative size as the one unknown dimension',
    # the closure after issue 48's round 7 (each code's row kept once a process up to 6 states)
    ('automata/codetables.py', '_code_rows', 'size * n > _CODE_ROWS_BYTES -> size * n >= _CODE_ROWS_BYTES', 0):
        'size x n is 1, 8, 144, 1,024, 16,000, 331,776, then over 9 million for n = 1..8: never exactly 2^19, so > and >= keep the same tables',
    ('automata/codetables.py', '_digit_rows', 'False -> True', 0):
        'astype(copy=True): the same values in a copy',
    ('automata/codetables.py', '_digit_rows', '1 -> 2', 0):
        'reshape(-2): numpy takes any negative size as the one unknown dimension',
    ('automata/closure.py', '_Search.__init__', '0 -> 1', 0):
        'room 1 at the start: the identity is element 0, so the first numbering has start + count >= 2 > 1 and reserves as with room 0',
    ('automata/closure.py', '_Search._number_codes', 'm <= self.marked.shape[0] -> m < self.marked.shape[0]', 0):
        'a round of exactly 4,096 candidates reads its marks back into a fresh array instead of the kept one: the same values',
    # the closure after issue 48's round 6 (codes split by a shift, place values made once a process)
    ('automata/closure.py', '_Keys.__init__', '1 -> 2', 1):
        '`values > 2`: at values = 2 the else branch gives 1 bit, ceil(log2 2) = 1: the same',
    ('automata/closure.py', '_Keys.__init__', '1 -> 0', 1):
        '`values > 0`: at values = 1, max(1, ceil(log2 1)) = max(1, 0) = 1, the else branch: the same',
    ('automata/closure.py', '_Keys.__init__', '1 -> 2', 2):
        'values <= 1 (one state): every entry is 0, packed at any width to the key 0: the same keys',
    ('automata/closure.py', '_Keys.__init__', '1 -> 0', 2):
        'values <= 1 (one state): every entry is 0, packed at any width to the key 0: the same keys',
    ('automata/closure.py', '_Keys.__init__', 'bits * n <= 63 -> bits * n < 63', 0):
        'packed keys or hashed keys checked against the rows: the same closure (at exactly 63 bits both are exact)',
    ('automata/closure.py', '_Keys.__init__', '63 -> 64', 0):
        'at 64 bits the packed key is the row read in 64 bits mod 2^64 (int64 wraps): distinct rows still have distinct keys',
    ('automata/closure.py', '_Keys.__init__', '1 -> 2', 3):
        'every packed key doubled (2 << bits i): below 2^64 (at most 63 bits), so mod 2^64 still one key per row',
    **{('automata/closure.py', fn, label, n): 'the hash: its seed and its multipliers (their range, odd or not) decide only which rows might collide, and every hashed key is checked against the rows (a collision falls back to exact keys, tested)'
       for fn, label, n in (('_Keys.__init__', '0x5EED -> 24302', 0), ('_Keys.__init__', '1 -> 2', 4),
                            ('_Keys.__init__', '1 -> 0', 4), ('_Keys.__init__', '1 -> 2', 5),
                            ('_Keys.__init__', '1 -> 0', 5))},
    **{('automata/closure.py', fn, label, n): 'reshape(-2): numpy takes any negative size as the one unknown dimension'
       for fn, label, n in (('_Keys.encode', '1 -> 2', 0), ('_Codes.children', '1 -> 2', 0),
                            ('_Search.code_round', '1 -> 2', 3), ('_Search.code_round', '1 -> 2', 4),
                            ('_Search.level', '1 -> 2', 1))},
    **{('automata/closure.py', '_Search.code_round', label, n): 'which runs of rounds share one chain [lo, hi, first, end] of finish_rounds: any split or merge of runs gives the same arrays (the elements first..end of a chain have their shortlex parents in lo..hi whether the chain is one round or several, and the right rows it recomputes are the ones level wrote); time only'
       for label, n in (('1 -> 0', 5), ('1 -> 2', 6), ('1 -> 0', 6))},
    ('automata/closure.py', '_Keys.lookup', '1 -> 2', 0):
        'an unknown key gets -2 instead of -1: only found < 0 is read',
    ('automata/closure.py', '_Codes.__init__', '1 -> 2', 2):
        "the table's size max(2, n**(n-c) << s): n**(n-c) << s >= 1 for every n; one state: a second entry never read",
    ('automata/closure.py', '_Codes.__init__', '1 -> 0', 2):
        "the table's size max(0, n**(n-c) << s) = n**(n-c) << s >= 1 for every n >= 1",
    ('automata/closure.py', '_Codes.__init__', '2 * c -> 2 // c', 0):
        'the high table made by its own product where the low one would do (an even n: n - c = c digits, the same values)',
    ('automata/closure.py', '_Codes.__init__', '2 -> 3', 0):
        'the high table always made by its own product (3c = n never holds): for an even n the same values as the low one',
    ('automata/codetables.py', '_chunk_table', '1 -> 0', 0):
        'every call passes images = np.eye(n) (_place_values): square, so shape[0] = shape[1]',
    ('automata/codetables.py', '_keep_table', 'table.nbytes <= _KEPT_TABLE_BYTES -> table.nbytes < _KEPT_TABLE_BYTES', 0):
        'no table is exactly 8 MiB (7 states: 5.4 MiB, 8 states: 64 MiB): the same tables kept',
    ('automata/closure.py', '_closure', 'False -> True', 0):
        'the default clock (a direct call without one, as the sampled tests make) would print progress lines only after 2 s: no such closure runs that long',
    ('automata/closure.py', '_closure', '1 -> 2', 2):
        "the identity's key inserted from rows[:2] with one index: zip stops at the shorter, the same single key",
    ('automata/closure.py', '_closure', '1 -> 2', 3):
        "the identity's key inserted with indices zeros(2): zip stops at the shorter, the same single key",
    ('automata/closure.py', '_closure', '_CHUNK_ENTRIES // (k * n) -> _CHUNK_ENTRIES * (k * n)', 0):
        'a large frontier not cut in chunks: memory per step, not the result',
    ('automata/closure.py', '_direct', '8 -> 9', 0):
        'n = 9: 9**9 is past the table\'s 2**24 entries, refused by the second test either way',
    ('automata/closure.py', '_Search._number_codes', 'm <= _MARKS.shape[0] -> m < _MARKS.shape[0]', 0):
        'at m = 4,096 the arange gives the marks the slice would: m, ..., 1',
    ('automata/closure.py', '_Search._number_codes', 'start + count > self.room -> start + count >= self.room', 0):
        "at start + count = room, _reserve passes the limits' check and grows nothing: the same tables",
    # the sampled closure (automata/sampled.py, issue 48)
    ('automata/sampled.py', '_samples', 'narrow < _SAMPLE_COLUMNS -> narrow <= _SAMPLE_COLUMNS', 0):
        'the samples are only asked for past 128 states: narrow = 63 // ceil(log2 n) <= 7, never 64',
    ('automata/sampled.py', '_block_rows', '1500 -> 1501', 0):
        'a tuning constant of the block size (time only: any block of at least one row gives the same elements; the tests run blocks of 1 and 3 rows)',
    ('automata/sampled.py', '_materialise', 'k * n - 1 <= np.iinfo(gens.dtype).max -> k * n - 1 < np.iinfo(gens.dtype).max', 0):
        _NARROW_SAFE,
    ('automata/sampled.py', '_materialise', 'k * n - 1 -> k * n + 1', 0):
        _NARROW_SAFE,
    ('automata/sampled.py', '_materialise', '1 -> 0', 2):
        _NARROW_SAFE,
    ('automata/sampled.py', '_materialise', '1 -> 2', 2):
        "narrow also where k n - 1 is one past the type's largest value: k n = 2^8 + 1 = 257 or 2^16 + 1 = "
        "65,537, both prime, so k = 1 (no offsets: narrow is False) or n = 1 (never sampled: past 128 states "
        "only); int32 rows hold more than 65,536 states, whose 2 GiB table bound keeps one row (no loop)",
    ('automata/closure.py', '_Search._first_new', '1 -> 2', 0):
        "head[:2] = True: head[1] is written again on the next line, the same comparison",
    ('automata/sampled.py', '_materialise', '1 -> 2', 0):
        'reshape(-2): numpy takes any negative size as the one unknown dimension',
    ('automata/sampled.py', '_materialise', 'k > 1 -> k >= 1', 0):
        'with one symbol every via from element 1 on is 0: the offsets added are all 0',
    ('automata/sampled.py', '_materialise', '1 -> 0', 1):
        'with one symbol every via from element 1 on is 0: the offsets added are all 0',
    ('constructions/proof/prover.py', '_prove_affine', '1 -> 2', 0):
        'reshape(k * C, -2): numpy takes any negative size as the one unknown dimension',
    ('constructions/proof/prover.py', '_prove_affine', 'False -> True', 0):
        'conform=True on "full": every matrix conforms to full',
    ('constructions/proof/prover.py', '_prove_affine', 'search.finish() -> pass', 0):
        'the last progress line only (shown after PROGRESS_AFTER seconds); no verdict depends on it',
    ('constructions/proof/prover.py', '_SymbolwiseClosure.run', '1 -> 2', 0):
        'the start pair\'s parent -2: word() stops at any negative parent',
    ('constructions/proof/prover.py', '_SymbolwiseClosure.run', '1 -> 2', 1):
        'the start pair\'s symbol: never read (word() stops before it)',
    ('constructions/proof/prover.py', '_SymbolwiseClosure.run', '1 -> 0', 1):
        'the start pair\'s symbol: never read (word() stops before it)',
    ('constructions/proof/prover.py', '_SymbolwiseClosure.screen',
     'key in self.decided or self.C == 1 -> key in self.decided and self.C == 1', 0):
        'the cache and the one-class shortcut only skip work: deciding again gives the same answer',
    ('constructions/proof/prover.py', '_SymbolwiseClosure.screen', '1 -> 0', 0):
        'C == 0 never holds: one class is then screened, with the same (always right) answer',
    ('constructions/proof/prover.py', '_SymbolwiseClosure.screen', 'self.decided.setdefault(key, (np.inf, np.inf)) -> pass', 0):
        'only reached for a decided key (no-op) or one class (no margin is computed)',
    ('constructions/proof/prover.py', '_SymbolwiseClosure.screen', 'lo <= 0 -> lo < 0', 0):
        'float boundary, as in _Readout.screen: lo == 0.0 needs gap == err to the last bit',
    ('constructions/proof/prover.py', '_SymbolwiseClosure.screen', '0 -> 1', 0):
        'lo <= 1: more classes decided exactly, the same verdict (performance)',
    ('constructions/proof/prover.py', '_SymbolwiseClosure.counterexample',
     'sign(self.readout.diff(h, off + other, off + best)) > 0 -> sign(self.readout.diff(h, off + other, off + best)) >= 0', 0):
        'a tie moves best to another tied class, and a tie is reported as got=None either way',
    ('constructions/proof/prover.py', '_SymbolwiseClosure.proof', 'lo > ceiling -> lo >= ceiling', 0):
        'a triple skipped at lo == ceiling has a margin >= the ceiling triple\'s: the minimum is unchanged',
    ('constructions/proof/prover.py', '_SymbolwiseClosure.proof',
     'self.domain.sign(value - margin) < 0 -> self.domain.sign(value - margin) <= 0', 0):
        'guarded by value != margin: the sign is never 0 there',
    ('constructions/proof/prover.py', '_SymbolwiseClosure.proof', '0 -> 1', 0):
        'sign(value - margin) < 1 is sign <= 0, and value != margin rules out 0: the same test',
    ('constructions/values/factored.py', 'positive_multiple', '0 -> 1', 0):
        'P is square: its shape[1] is its shape[0]',
    ('constructions/values/factored.py', 'positive_multiple', '0 -> 1', 1):
        'M is square: its shape[1] is its shape[0]',
    ('learned/grouped_loop.py', '_run', 'n > 0 -> n >= 0', 0):
        'a GEMM of zero rows writes nothing: skipping it is only faster',
    ('learned/grouped_loop.py', 'grouped_no_grad', '1 -> 2', 1):
        'the logits buffer has no columns without a readout, whatever its rows',
    ('learned/grouped_loop.py', 'grouped_no_grad', '1 -> 0', 1):
        'the logits buffer has no columns without a readout, whatever its rows',
    ('learned/grouped_loop.py', 'grouped_no_grad', '0 -> 1', 3):
        'without a readout the logits buffer is never read: one column or none',
    ('learned/grouped_loop.py', 'grouped_no_grad', '1 -> 2', 2):
        "the norm buffer is vector_norm's out=, which resizes it to (rows, 1) before writing",
    ('learned/grouped_loop.py', 'grouped_no_grad', '1 -> 0', 2):
        "the norm buffer is vector_norm's out=, which resizes it to (rows, 1) before writing",
    ('learned/grouped_loop.py', 'grouped_no_grad', 'smallest >= low -> smallest > low', 0):
        'a norm exactly on the band edge (1e-10): both paths are right to rounding there, so the side is a free choice',
    ('learned/grouped_loop.py', 'grouped_no_grad', 'largest <= high -> largest < high', 0):
        'a norm exactly on the band edge (1e10): both paths are right to rounding there, so the side is a free choice',
    ('learned/grouped_loop.py', 'grouped_no_grad', 'last + 1 < time -> last + 1 <= time', 0):
        'the carry is also set after the last block, where nothing reads it',
    ('learned/grouped_loop.py', 'grouped_no_grad', 'last + 1 -> last - 1', 0):
        'the carry is also set after the last block, where nothing reads it',
    ('learned/grouped_loop.py', 'grouped_no_grad', '1 -> 0', 5):
        'the carry is also set after the last block, where nothing reads it',
    ('learned/grouped_loop.py', 'grouped_no_grad', 'last + 1 < time -> last + 1 <= time', 1):
        'the carry is also set after the last block, where nothing reads it',
    ('learned/grouped_loop.py', 'grouped_no_grad', 'last + 1 -> last - 1', 1):
        'the carry is also set after the last block, where nothing reads it',
    ('learned/grouped_loop.py', 'grouped_no_grad', '1 -> 0', 7):
        'the carry is also set after the last block, where nothing reads it',
    ('constructions/impossible/bounds.py', '_complex_bound', '4 -> 5', 0):
        "Theorem F11's bounds are even (2 or 4 here, or past 4), so > 4 and > 5 agree",
    ('constructions/impossible/bounds.py', '_complex_bound', 'len(found[1]) < 2 -> len(found[1]) <= 2', 0):
        'a group of order 2 is abelian: the test that follows answers True and the bound stays',
    ('constructions/impossible/bounds.py', '_complex_bound', '2 -> 3', 0):
        'a group of order 2 is abelian: the test that follows answers True and the bound stays',
    ('automata/groups.py', 'abelian_of_index_at_most_two', '1 -> 0', 0):
        'signs = 0 is the trivial character, whose kernel is the whole group, already found not abelian',
    ('automata/groups.py', 'abelian_of_index_at_most_two', '2 -> 3', 0):
        'signs up to 3^k - 1 read through their k low bits: every character of the 2^k again, repeated',
    ('constructions/handmade/halfturns.py', '_complement',
     'i == j -> i != j', 0):
        'Gram-Schmidt of the vectors 1 - e_i, which span R^d as the e_i do: another orthogonal basis of the same complement',
    ('constructions/handmade/halfturns.py', 'half_turn_factors',
     '1 -> 0', 0):
        't starts at 0: 0 never satisfies t^2 n_2 > n_1 > 0, so the loop reaches the same least t',
    ('constructions/handmade/halfturns.py', 'half_turn_factors',
     '1 -> 2', 2):
        'k starts at 2: at k = 1 (beta = 1/2) f(1) >= 0 for every plane (the product of cosines is >= -1/8), so k = 1 never succeeds',
    ('constructions/handmade/halfturns.py', 'half_turn_factors',
     '1 -> 0', 2):
        'k starts at 0: beta = 0 gives beta_3 = 2, outside (0, 1), and the loop goes on as before',
    ('constructions/handmade/halfturns.py', 'half_turn_factors',
     '1 -> 2', 3):
        'range(1, HALF_TURN_STEPS + 2): one more step past the last, never reached (k <= 6 succeeds)',
    ('constructions/handmade/halfturns.py', 'half_turn_factors',
     '1 -> 0', 3):
        'range(1, HALF_TURN_STEPS): one step fewer than 60, never reached (k <= 6 succeeds)',
    ('constructions/handmade/halfturns.py', 'half_turn_factors',
     'HALF_TURN_STEPS + 1 -> HALF_TURN_STEPS - 1', 0):
        'two steps fewer than 60, never reached (k <= 6 succeeds)',
    ('constructions/handmade/halfturns.py', 'half_turn_factors',
     '1 -> 2', 5):
        'beta = 1 - 2^(1-k): the same sequence of betas one step later (k = 1 gives beta = 0, which never succeeds)',
    ('constructions/handmade/halfturns.py', 'half_turn_factors',
     '0 -> 1', 3):
        'skipping a k whose c^T N c is exactly 1: no plane of the tests or the matrix meets it, and the next k works as well',
    ('constructions/handmade/halfturns.py', 'half_turn_factors',
     '0 < beta3 < 1 -> 0 <= beta3 < 1', 0):
        'beta_3 = 0 would need tr_P N = 0, but tr_P N > 0 (a product of two positive definite matrices)',
    ('constructions/handmade/halfturns.py', 'half_turn_factors',
     '0 < beta3 < 1 -> 0 < beta3 <= 1', 0):
        'beta_3 = 1 would need f(1) = 0 exactly at a dyadic beta; the loop stops at f(1) < 0 in every plane met',
    ('constructions/handmade/halfturns.py', 'half_turn_factors',
     'raise ConstructionError(f"half_turn_factors: no beta_3 in (0, 1) with beta_1 = beta_2 <= 1 - 2^-{HALF_TURN_STEPS}") -> pass', 0):
        "unreachable: the theorem's limit argument gives a k, and k <= 6 in every plane met",
    ('constructions/handmade/halfturns.py', '_orthogonal_to',
     'raise ConstructionError("a pair of reflections in d = 2 is no product of half-turns") -> pass', 0):
        'unreachable: without the extra coordinate d >= 3, so a vector orthogonal to two always exists',
    ('constructions/handmade/halfturns.py', 'rotation_half_turns',
     '0 -> 1', 0):
        'the float tolerance of _split_orthogonal, unused for exact matrices',
    ('constructions/handmade/halfturns.py', 'nonneg_weights',
     'raise AssertionError(f"{label}: half-turns made other than the {K} factors counted") -> pass', 0):
        'a self-check of nonneg_count that never fires (the tests count each source against its conversion)',
    ('constructions/handmade/halfturns.py', 'nonneg_weights',
     'raise ConstructionError(f"{label}: symbol {symbols[s]!r} is not a positive multiple of " -> pass', 0):
        'a self-check of Theorem F13 that never fires (the tests check the products independently)',
    ('constructions/handmade/halfturns.py', 'nonneg_weights',
     '0 -> 1', 3):
        'readout 1 on the extra coordinate: the state is 0 there (h0 is, and the matrices are block-diagonal), so every score is unchanged',
    ('constructions/handmade/reflections.py', 'rotation_projections', 'e %= m -> pass', 0):
        'the exponents of _cyclic_action already lie in 0 .. m - 1',
    ('constructions/handmade/reflections.py', 'rotation_projections', '1 -> 2', 5):
        'the padding factor H((2, 0), 0): with beta = 0 every vector gives the identity',
    ('constructions/handmade/reflections.py', 'rotation_projections', '0 -> 1', 3):
        'the padding factor H((1, 1), 0): with beta = 0 every vector gives the identity',
    ('constructions/handmade/reflections.py', 'rotation_projections',
     'raise ConstructionError(f"{label}: symbol {automaton.symbols[a]!r} is not a positive multiple " -> pass', 0):
        "a self-check of the theorem's identities that never fires (the tests check them independently)",
    ('constructions/handmade/reflections.py', 'rotation_projections', '1 -> 2', 6):
        'h0 = (2, 0): Theorem 2 holds for every non-zero h0 (B has no eigenvalue 1)',
    ('constructions/handmade/reflections.py', 'rotation_projections', '0 -> 1', 5):
        'h0 = (1, 1): Theorem 2 holds for every non-zero h0 (B has no eigenvalue 1)',
    ('constructions/horizon/snap.py', 'factor_snap',
     'abs(angle - 2 * math.pi * k / q) <= snap_angle(q) -> abs(angle - 2 * math.pi * k / q) < snap_angle(q)', 0):
        'an angle exactly at the edge of a window: the float distance never lands on min(0.05, pi / 2q^2)',
    ('constructions/horizon/snap.py', 'factor_snap', '1 -> 2', 6):
        'the lcm of no orders: an entry of relative modulus 1 (the largest) is always chosen or refused',
    ('constructions/horizon/snap.py', 'factor_snap', '1 -> 0', 6):
        'the lcm of no orders: an entry of relative modulus 1 (the largest) is always chosen or refused',
    ('constructions/horizon/snap.py', 'factor_snap', '1 -> 2', 5):
        'real orders (2, 2): angle 0 then snaps through order 2 with k = 0, the same +1; L is unused for real D',
    ('constructions/handmade/complex_monomial.py', 'complexify', '0 -> 1', 7):
        'R2[...] = 1: the readout columns of the imaginary parts, which are 0 in every hidden vector h (x) e_1',
    ('constructions/handmade/complex_monomial.py', 'complex_dihedral', '1 -> 0', 2):
        'h0 = (0, 0, 2, 0): |z_0| = 0 and |z_1| = 2 still differ, so the 2n images still differ',
    ('constructions/handmade/complex_monomial.py', 'complex_dihedral', '0 -> 1', 3):
        'h0 = (1, 1, 2, 0): |z_0| = sqrt 2 against 2, the 2n images still differ',
    ('constructions/handmade/complex_monomial.py', 'complex_dihedral', '2 -> 3', 3):
        'h0 = (1, 0, 3, 0): |z_0| = 1 against 3, the 2n images still differ',
    ('constructions/handmade/complex_monomial.py', 'complex_dihedral', '0 -> 1', 4):
        'h0 = (1, 0, 2, 1): |z_0| = 1 against sqrt 5, the 2n images still differ',
    ('constructions/values/factored.py', 'householder_compose', '0 -> 1', 1):
        'np.zeros((0, d, d)) for no symbols: weights always have a symbol, so the empty branch is never taken',
    ('constructions/values/factored.py', '_orthogonal', '0 -> 1', 0):
        'M.shape[1] == M.shape[0]: transition matrices are square',
    ('constructions/values/factored.py', '_split_orthogonal', '0 -> 1', 0):
        'Q.shape[1] == Q.shape[0]: square',
    ('constructions/values/factored.py', 'derive_householder', '10 -> 11', 0):
        "the orthogonality test's slack, 10 x tol: exact weights have tol = 0, and 11 x only moves the float bound",
    ('constructions/values/factored.py', 'derive_householder', '10 -> 11', 1):
        "the orthogonal split's slack, 10 x tol: exact weights have tol = 0, and 11 x only moves the float bound",
    ('constructions/values/factored.py', 'derive_householder', '2 * one -> 2 // one', 0):
        'one is 1 or 1.0: 2 // one == 2 * one',
    ('constructions/values/factored.py', '_trace', '0 -> 1', 0):
        'N.shape[1] == N.shape[0]: square',
    ('constructions/values/factored.py', '_within', '-tol <= float(beta) <= top + tol -> -tol < float(beta) <= top + tol', 0):
        'differs only for a float trace exactly at -tol, a tie at the tolerance itself',
    ('constructions/values/factored.py', '_within', '-tol <= float(beta) <= top + tol -> -tol <= float(beta) < top + tol', 0):
        'differs only for a float trace exactly at top + tol, a tie at the tolerance itself',
    ('constructions/values/factored.py', 'reflection_count', '0 -> 1', 0):
        'M.shape[1] == M.shape[0]: square',
    ('constructions/values/factored.py', 'reflection_count', '0 -> 1', 1):
        'rank_decomposition returns two (d, r) factors: either has r columns',
    ('constructions/values/factored.py', 'reflection_count', '0 -> 1', 2):
        'float_rank_decomposition returns two (d, r) factors: either has r columns',
    ('constructions/proof/prover.py', '_closure', '1 -> 2', 0):
        "the root's parent -2: any negative parent ends PairSearch.word",
    ('constructions/proof/prover.py', '_closure', '1 -> 2', 1):
        "the root's symbol is never read",
    ('constructions/proof/prover.py', '_closure', '1 -> 0', 1):
        "the root's symbol is never read",
    ('constructions/proof/prover.py', '_Readout.screen', '1 -> 0', 0):
        'one class on the general path: lo = [inf], no candidate, hi = [inf], the same bounds',
    ('constructions/proof/prover.py', '_Readout.screen', '0 -> 1', 0):
        'lo <= 1: more classes decided exactly, the same verdict (performance)',
    ('constructions/proof/prover.py', '_Readout.screen', 'lo <= 0 -> lo < 0', 0):
        'float boundary: lo = gap - err with err >= 1e-300; lo == 0.0 needs gap == err to the last bit',
    ('constructions/proof/prover.py', '_Readout.counterexample', 'sign(self.diff(h, other, best)) > 0 -> sign(self.diff(h, other, best)) >= 0', 0):
        'best moves between tied maxima; the tie test and the answer are the same',
    ('constructions/proof/prover.py', '_Readout.minimum_margin', '1 -> 0', 0):
        'one class: no candidate, None either way',
    ('constructions/proof/prover.py', '_Readout.minimum_margin', 'lo <= ceiling -> lo < ceiling', 0):
        "float boundary: each pair's lo < its hi (err > 0); equality with another pair's hi is to the last bit",
    ('constructions/proof/prover.py', '_Readout.minimum_margin', 'seen.add((hid, L)) -> pass', 0):
        'a memo: a direction read twice is decided twice (performance)',
    ('constructions/proof/prover.py', '_Readout.minimum_margin', 'gap_lo <= ceiling -> gap_lo < ceiling', 0):
        'float boundary, as for lo <= ceiling',
    ('constructions/proof/prover.py', '_Readout.minimum_margin', 'self.domain.sign(value - best) < 0 -> self.domain.sign(value - best) <= 0', 0):
        'value != best, so the sign is not 0',
    ('constructions/proof/prover.py', '_Readout.minimum_margin', '0 -> 1', 2):
        'a sign below 1 is a sign at most 0; value != best, so it is -1',
    ('constructions/proof/prover.py', '_largest_row_sum', '1 -> 2', 0):
        'a default for an empty matrix: a stricter check only',
    ('constructions/proof/prover.py', '_largest_row_sum', '1 -> 2', 1):
        'the floor for a zero matrix: a stricter check only',
    ('constructions/proof/prover.py', '_Int64Closure.__init__', '1 -> 2', 0):
        'A.shape[2] == A.shape[1]: square matrices',
    ('constructions/proof/prover.py', '_Int64Closure.run', '0 -> 1', 0):
        'the default of max over an empty h0; d >= 1 always',
    ('constructions/proof/prover.py', '_Int64Closure.ids', '1 -> 2', 1):
        "the zero vector's gcd replaced by 2 instead of 1: 0 // 2 == 0",
    ('constructions/proof/prover.py', '_Int64Closure.margins_of', 'len(pairs) > step -> len(pairs) >= step', 0):
        'one more look at the clock',
    ('constructions/proof/prover.py', '_Int64Closure.margins_of', 'clock is not None and len(pairs) > step -> clock is not None or len(pairs) > step', 0):
        'prove always gives the search a Clock',
    ('constructions/proof/prover.py', '_Int64Closure.fail', '1 -> 2', 1):
        'A.shape[2] == A.shape[1]: square matrices',
    ('constructions/proof/prover.py', '_Int64Closure.closure', '1 -> 2', 0):
        'A.shape[2] == A.shape[1]: square matrices',
    ('constructions/proof/prover.py', '_Int64Closure.closure', '1 -> 2', 1):
        "the root's parent -2: any negative parent ends PairSearch.word",
    ('constructions/proof/prover.py', '_Int64Closure.closure', '1 -> 2', 2):
        "the root's symbol is never read",
    ('constructions/proof/prover.py', '_Int64Closure.closure', '1 -> 0', 2):
        "the root's symbol is never read",
    ('constructions/proof/prover.py', '_Int64Closure.closure', '0 -> 1', 9):
        'max |H| taken as at least 1: a stricter check only',
    ('constructions/proof/prover.py', '_Int64Closure.closure', '1 -> 2', 3):
        'reshape(-2, d): numpy reads a negative size as the unknown one',
    ('constructions/proof/prover.py', '_Int64Closure.closure', '1 -> 2', 4):
        'reshape(-2): numpy reads a negative size as the unknown one',
    # certificates.py: what the shortest-certificate oracles (tests/constructions/impossible/test_certificates.py,
    # pair by pair on 150 machines per kind) and verify's earlier checks leave
    ('constructions/impossible/certificates.py', 'minimal_period', '1 -> 2', 1):
        "range(1, n + 2): p = n + 1 never divides n",
    ('constructions/impossible/certificates.py', 'minimal_period', '1 -> 0', 1):
        "range(1, n): p = n is never tried, and the fallback after the loop returns n",
    ('constructions/impossible/certificates.py', 'minimal_period', 'i + p -> i - p', 0):
        "a sequence equals its rotation by p exactly when it equals its rotation by -p",
    ('constructions/impossible/certificates.py', 'Certificate.failing_word', '256 -> 257', 0):
        "a default search limit: one more n tried",
    ('constructions/impossible/certificates.py', 'Certificate.verify', 'False -> True', 10):
        "implied: if the label period divided step, the witnesses' labels (checked earlier) would be equal",
    ('constructions/impossible/certificates.py', '_pair_search', 'nxt[0] <= level -> nxt[0] < level', 0):
        "every source enters one level later: the same order, one empty level first",
    ('constructions/impossible/certificates.py', '_commutation', '1 -> 0', 0):
        "triu(., 0) adds the diagonal, where M[x, x] != M[x, x] is never true",
    ('constructions/impossible/certificates.py', '_periodic', 'raise RuntimeError(f"internal error: {a.name} has no '
     'commutation certificate but is not commutative") -> pass', 0):
        "internal error unreachable: commutation is tried first and Theorem 9.1 finds a pair",
    ('constructions/impossible/certificates.py', 'certify', 'raise RuntimeError(f"internal error: the {kind} certificate '
     'for {a.name} does not verify") -> pass', 0):
        "internal error unreachable: every certificate the search builds verifies (tested per kind)",
    ('constructions/impossible/certificates.py', '_periodic', 'i + step -> i - step', 0):
        "the same cycle pairs reversed: the same shortest lengths (a tie may pick another shortest v)",
    ('constructions/impossible/certificates.py', '_symbol_periodic', 'i + step -> i - step', 0):
        "the same cycle pairs reversed: the same shortest lengths (a tie may pick another shortest v)",
    ('constructions/impossible/certificates.py', '_symbol_periodic',
     'len(cycle) <= step and step % len(cycle) == 0 -> len(cycle) <= step or step % len(cycle) == 0', 0):
        "for step 1 or 2 both skip exactly the cycles of length 1..step (performance: their pairs are equal)",
    ('constructions/impossible/certificates.py', '_symbol_periodic', 'len(cycle) <= step -> len(cycle) < step', 0):
        "skips fewer cycles: a cycle of length step only yields pairs of equal states, which the search drops",
    ('constructions/impossible/certificates.py', '_symbol_periodic', 'step % len(cycle) == 0 -> step % len(cycle) != 0', 0):
        "skips no cycle: their pairs are equal states, which the search drops (performance)",
    ('constructions/impossible/certificates.py', '_symbol_periodic', '0 -> 1', 0):
        "skips no cycle: their pairs are equal states, which the search drops (performance)",
    ('constructions/impossible/certificates.py', '_symbol_periodic', 'len(u) + 1 -> len(u) - 1', 0):
        "sources of |u| = 0 and 1 start on one level; |u| = 0 comes first, so no longer certificate wins",
    ('constructions/impossible/certificates.py', '_symbol_periodic', '1 -> 2', 1):
        "every source's level shifted by one: the same order",
    ('constructions/impossible/certificates.py', '_symbol_periodic', '1 -> 0', 1):
        "every source's level shifted by one: the same order",
    ('constructions/proof/prover.py', '_Readout.__init__', '1 -> 2', 0):
        "the conductor is never 2: entries of Q(zeta_2) = Q have conductor 1",
    # stackprover.py: what test_stack.py's exact-class, tie and one-layer tests leave
    ('constructions/proof/stackprover.py', '_Layer.class_of', '1 -> 0', 0):
        "one class through the general path: best = 0 and no tie, the same class",
    ('constructions/proof/stackprover.py', '_Layer.class_of',
     'mid[a] - err[a] > mid[b] + err[b] -> mid[a] - err[a] >= mid[b] + err[b]', 0):
        "a float boundary of measure zero: equal endpoints need the bounds to meet to the last bit",
    ('constructions/proof/stackprover.py', '_Layer.class_of',
     'mid[a] + err[a] < mid[b] - err[b] -> mid[a] + err[a] <= mid[b] - err[b]', 0):
        "a float boundary of measure zero: equal endpoints need the bounds to meet to the last bit",
    ('constructions/proof/stackprover.py', '_Layer.class_of', '1 -> 2', 1):
        "only the sign of greater() is read",
    ('constructions/proof/stackprover.py', '_Layer.class_of', '1 -> 2', 2):
        "only the sign of greater() is read",
    ('constructions/proof/stackprover.py', '_Layer.class_of', '1 -> 0', 2):
        "unreachable: b above a by whole intervals means a is not the argmax found so far (the floats "
        "enclose the exact scores), and the scan visits the classes in descending float order",
    ('constructions/proof/stackprover.py', '_Layer.class_of', '1 -> 0', 3):
        "order[0:] compares the first class with itself first: a zero sign, no change",
    ('constructions/proof/stackprover.py', '_Layer.class_of', 'greater(best, c) < 0 -> greater(best, c) <= 0', 0):
        "an exact tie moves best to the tied class, and the tie check then returns None either way",
    ('constructions/proof/stackprover.py', '_Layer.class_of', '0 -> 1', 3):
        "an exact tie moves best to the tied class, and the tie check then returns None either way",
    ('constructions/proof/stackprover.py', '_Closure.run', '1 -> 2', 1):
        "the root pair's symbol is never read",
    ('constructions/proof/stackprover.py', '_Closure.run', '1 -> 0', 1):
        "the root pair's symbol is never read",
    ('constructions/proof/stackprover.py', '_Closure.run', '1 -> 2', 0):
        "the root's parent -2: any negative parent ends PairSearch.word",
    ('constructions/proof/stackprover.py', '_Closure.run', '1 -> 0', 2):
        "h0[0] for h0[-1]: every layer's start direction is id 0 of its own store",
    ('constructions/proof/stackprover.py', '_Closure.run', '1 -> 0', 3):
        "h0[0] for h0[-1]: every layer's start direction is id 0 of its own store",
    ('constructions/proof/stackprover.py', '_Closure.run', '1 -> 0', 4):
        "h0[0] for h0[-1]: every layer's start direction is id 0 of its own store",
    # domains.py: what test_domains.py (against sympy, dense polynomials, mpmath and the
    # definition of parallel) leaves
    ('constructions/exact/domains.py', 'RationalDomain.canon', '1 -> 0', 0):
        "x == 0 never holds for the first non-zero x: the scaling always runs, and by 1 changes nothing",
    ('constructions/exact/domains.py', 'IntegerDomain.key', '1 -> 0', 0):
        "g = 1 divides every entry: x // 1 is x",
    ('constructions/exact/domains.py', 'CyclotomicDomain.__init__', '64 -> 65', 0):
        "a more precise zeta ball: tighter enclosures that are checked anyway",
    ('constructions/exact/domains.py', 'CyclotomicDomain._sign_at', '0 -> 1', 0):
        "the radius read as the midpoint never excludes zero: every sign decided exactly (performance)",
    ('constructions/exact/domains.py', 'CyclotomicDomain._sign_at', 'mid > 0 -> mid >= 0', 0):
        "read only when |mid| > rad >= 0, so mid != 0",
    ('constructions/exact/domains.py', 'CyclotomicDomain.floats', 'x.degree() <= 0 -> x.degree() < 0', 0):
        "constants through the ball evaluation: another valid enclosure",
    ('constructions/exact/domains.py', 'terms_poly', '1 -> 2', 0):
        "a trailing zero coefficient, which fmpq_poly drops",
    ('constructions/exact/domains.py', '_radical', 'k > 1 -> k >= 1', 0):
        "k >= 1 always, and out * 1 is out",
    ('constructions/exact/domains.py', '_radical', '1 -> 0', 2):
        "k > 0 and k > 1 differ only at k = 1, where out * 1 is out",
    ('constructions/exact/domains.py', '_entry', '1 -> 0', 0):
        "len(terms) == 0 never holds (every entry has a term): the general form is read, the same sum",
    ('constructions/exact/domains.py', '_entry', '1 -> 2', 2):
        "no reduction coefficient is 2 (all are +1 or -1): the general form is read, the same sum",
    ('constructions/exact/domains.py', '_entry', '1 -> 0', 2):
        "no reduction coefficient is 0: the general form is read, the same sum",
    ('constructions/exact/domains.py', 'SparseCyclotomicDomain.__init__', '2 -> 3', 0):
        "a longer reduction table (k < 3m): the entries past 2m are never read",
    ('constructions/exact/domains.py', 'SparseCyclotomicDomain.__init__', '128 -> 129', 0):
        "a more precise cosine table: each entry is rounded to a float either way",
    **{('constructions/exact/domains.py', 'SparseCyclotomicDomain.suits', label, 0):
       "which representation serves Q(zeta_m): the sparse and the dense domains compute the same "
       "elements (tested against each other), and suits is asked only for conductors above 2"
       for label in ("m > 2 and flint.fmpz_poly.cyclotomic(r).degree() <= SPARSE_MAX_RADICAL_DEGREE -> "
                     "m > 2 or flint.fmpz_poly.cyclotomic(r).degree() <= SPARSE_MAX_RADICAL_DEGREE",
                     "m > 2 -> m >= 2", "2 -> 3",
                     "flint.fmpz_poly.cyclotomic(r).degree() <= SPARSE_MAX_RADICAL_DEGREE -> "
                     "flint.fmpz_poly.cyclotomic(r).degree() < SPARSE_MAX_RADICAL_DEGREE")},
    **{('constructions/exact/domains.py', 'SparseCyclotomicDomain.constant', label, 0):
       "constant() only chooses how a multiplicand is written: every choice multiplies as the element"
       for label in ("len(p) > 1 -> len(p) >= 1", "1 -> 2", "1 -> 0")},
    **{('constructions/exact/domains.py', 'SparseCyclotomicDomain._monomial', label, 0):
       "a match is verified entry by entry (with o // s) before a monomial is returned: the mutant only "
       "skips compactions"
       for label in ("off // self.s -> off * self.s", "0 -> 1", "p[o // self.s] == c * u -> p[o // self.s] != c * u")},
    ('constructions/exact/domains.py', 'SparseCyclotomicDomain.dot', '1 -> 2', 0):
        "every reduction coefficient is +1 or -1 for the conductors the sparse domain serves (checked for "
        "all 33 radicals), so t == 2 never holds and c * t is c for t = 1",
    ('constructions/exact/domains.py', 'SparseCyclotomicDomain.dot', '1 -> 0', 0):
        "t is never 0: c * t is computed for t = 1 too, and is c",
    ('constructions/exact/domains.py', 'SparseCyclotomicDomain.enclose', 'mag * (len(x) + 4) * EPS + 1e-300 -> mag * (len(x) + 4) * EPS - 1e-300', 0):
        "x is non-zero here, so mag > 0 and the rounding term dwarfs 1e-300",
    ('constructions/exact/domains.py', 'SparseCyclotomicDomain.enclose', '4 -> 5', 0):
        "a wider enclosure: more signs decided exactly (performance)",
    ('constructions/exact/domains.py', 'SparseCyclotomicDomain.enclose', 'math.isfinite(mid) and math.isfinite(rad) -> math.isfinite(mid) or math.isfinite(rad)', 0):
        "|mid| <= mag <= rad, so a finite radius has a finite midpoint: only (finite mid, inf) can come "
        "back instead of (0, inf), and an infinite radius decides no sign either way",
    ('constructions/exact/domains.py', 'SparseCyclotomicDomain.sign', 'mid > 0 -> mid >= 0', 0):
        "read only when |mid| > rad >= 0, so mid != 0",
    ('constructions/exact/domains.py', 'direction_bucket', 'norm > 0 -> norm >= 0', 0):
        "the zero vector's bucket becomes a tuple of NaN cast to int64 instead of None: every zero vector "
        "still shares one bucket",
    **{('constructions/exact/domains.py', 'choose_domain', label, n):
       "the conductor is never 2 (entries of Q(zeta_2) = Q have conductor 1), and suits(1) is False"
       for label, n in (("m > 1 and SparseCyclotomicDomain.suits(m) -> m > 1 or SparseCyclotomicDomain.suits(m)", 0),
                        ("m > 1 -> m >= 1", 0), ("1 -> 2", 0), ("1 -> 0", 0), ("1 -> 2", 1))},
    # variants.py (conformance)
    **{('constructions/values/variants.py', '_rotation_extra', '2 -> 3', n):
       "the slice's end past the block: only blk[0..1, 0..1] are read" for n in (12, 13, 15, 16)},
    ('constructions/values/variants.py', '_pad_columns', '0 -> 1', 0):
        "factors[1] for factors[0]: U, C and W have the same number of columns",
    ('constructions/values/variants.py', '_project_factorized', '0 -> 1', 3):
        "sv * 1 for sv * 0 where sv[0] = 0: every singular value is zero either way",
    ('constructions/values/variants.py', '_rotation_project', '1 -> 2', 4):
        "A.shape[2] for A.shape[1]: the matrices are square",
    ('constructions/values/variants.py', '_positive_project', '1 -> 2', 0):
        "A.shape[2] for A.shape[1]: the matrices are square",
    ('constructions/values/variants.py', '_check_pattern', '1 -> 2', 0):
        "A.shape[2] for A.shape[1]: the matrices are square",
    ('constructions/values/variants.py', 'is_diagonal', '1 -> 2', 0):
        "A.shape[2] for A.shape[1]: the matrices are square",
    ('constructions/values/variants.py', 'project', '1 -> 2', 0):
        "A.shape[2] for A.shape[1]: the matrices are square",
    ('constructions/values/variants.py', '_matrix_tol', '0 -> 1', 0):
        "zeros of another length for exact weights, whose checks never read the tolerance",
    ('constructions/values/variants.py', '_check_pattern',
     'np.abs(A[s_, i_, j_]) > tol -> np.abs(A[s_, i_, j_]) >= tol', 0):
        "only nonzero entries are judged, so equality needs |x| = tol > 0 to the last bit",
    ('constructions/values/variants.py', '_project_factorized', 'sv[0] > 0 -> sv[0] >= 0', 0):
        "a zero matrix: 0 / 0 is NaN, and NaN > tol is false as 0 > tol is",
    ('constructions/values/variants.py', '_project_factorized', 'sv * 0 -> sv // 0', 0):
        "a zero matrix: 0 // 0 is NaN, and NaN > tol is false as 0 > tol is",
    ('constructions/values/variants.py', '_project_factorized', 'r[i] > FLOAT_RTOL -> r[i] >= FLOAT_RTOL', 0):
        "a float boundary of measure zero: a relative singular value equal to the tolerance",
    ('constructions/values/variants.py', 'relative_distance', '1 -> 2', 0):
        "reshape(k, -2): numpy reads a negative size as the unknown one",
    ('constructions/values/variants.py', 'relative_distance', '1 -> 2', 2):
        "reshape(k, -2): numpy reads a negative size as the unknown one",
    # search.py
    ('constructions/proof/search.py', 'Clock.__init__', '16 -> 17', 0):
        "how often a tick reads the time (performance)",
    ('constructions/proof/search.py', 'Clock.check', 'now > self.deadline -> now >= self.deadline', 0):
        "a time boundary of measure zero on a real clock",
    ('constructions/proof/search.py', 'Clock.tick_build', 'now > self.deadline -> now >= self.deadline', 0):
        "a time boundary of measure zero on a real clock",
    ('constructions/proof/search.py', 'Clock.check', 'now - self.start >= PROGRESS_AFTER -> now - self.start > PROGRESS_AFTER', 0):
        "a time boundary of measure zero on a real clock",
    ('constructions/proof/search.py', 'Clock.check', 'now - self._last >= PROGRESS_EVERY -> now - self._last > PROGRESS_EVERY', 0):
        "a time boundary of measure zero on a real clock",
    ('constructions/proof/search.py', 'Clock.tick_build',
     'now - self.start >= PROGRESS_AFTER -> now - self.start > PROGRESS_AFTER', 0):
        "a time boundary of measure zero on a real clock",
    ('constructions/proof/search.py', 'Clock.tick_build',
     'now - self._last >= PROGRESS_EVERY -> now - self._last > PROGRESS_EVERY', 0):
        "a time boundary of measure zero on a real clock",
    ('constructions/proof/search.py', 'HiddenStore._scores_of',
     '(R_abs @ np.abs(mid)) * (len(mid) + 2) * EPS -> R_abs @ np.abs(mid) * (len(mid) + 2) // EPS', 0):
        "a far wider enclosure: every score decided exactly instead (performance)",
    ('constructions/proof/search.py', 'HiddenStore._scores_of', '2 -> 3', 0):
        "a wider enclosure: more scores decided exactly (performance)",
    ('constructions/proof/search.py', 'PairSearch.__init__', '0 -> 1', 0):
        "the directions reported start at max(1, hid + 1), which is hid + 1 already",
    ('constructions/proof/search.py', 'PairSearch.unproved', 'raise AssertionError("unreachable: more pairs than states '
     'implies two directions for a state") -> pass', 0):
        "an assertion that the pigeonhole principle makes unreachable",
    # bounds.py
    ('constructions/impossible/bounds.py', '_prime_power_sum', 'p * p <= rest -> p * p < rest', 0):
        "p * p == rest means rest is the prime power p^2, which the remainder adds whole",
    ('constructions/impossible/bounds.py', 'monomial_bound', '1 -> 0', 0):
        "a start below 1: the first element sets it to 1 or more, and a best of 1 returns None either way",
    ('constructions/impossible/bounds.py', 'monomial_bound', '1 -> 2', 1):
        "the starting period is read only when no element beats the start, and then None is returned",
    ('constructions/impossible/bounds.py', 'monomial_bound', '1 -> 0', 1):
        "the starting period is read only when no element beats the start, and then None is returned",
    ('constructions/impossible/bounds.py', 'monomial_reset_bound', '3 -> 4', 1):
        "a fourth target is listed but never read: the reason names three",
    ('constructions/impossible/bounds.py', 'lower_bound', 'mono[0] > bound -> mono[0] >= bound', 0):
        "a tie between two true citations: Theorem F6 is named for an equal bound",
    ('constructions/impossible/bounds.py', 'lower_bound', 'bound < 3 -> bound <= 3', 0):
        "a tie between two true citations: Theorem F8's 3 replaces an equal bound",
    ('constructions/impossible/bounds.py', 'lower_bound', '3 -> 4', 1):
        "a tie between two true citations: Theorem F8's 3 replaces an equal bound",
    # values/affine.py (issue 43): checks that Weights repeats, the square A, the file's whitespace
    ('constructions/values/affine.py', 'AffineWeights.__init__', '1 -> 2', 0):
        'A.shape[2] == 0 or A.shape[1] != A.shape[2] holds for the same shapes as with A.shape[1] == 0',
    ('constructions/values/affine.py', 'AffineWeights.__init__', '1 -> 2', 2):
        'A is square (checked just above): its shape[2] is its shape[1]',
    ('constructions/values/affine.py', 'AffineWeights.__init__',
     'raise WeightsError(f"h0 has shape {h_.shape}, expected ({d},)") -> pass', 0):
        'the same h0 goes to Weights below, which refuses its shape with a WeightsError naming h0',
    ('constructions/values/affine.py', 'AffineWeights.__init__', '1 -> 2', 9):
        "the homogeneous Weights' readout (zeros) is dropped: only its variant, A and factors are kept",
    ('constructions/values/affine.py', 'AffineWeights.__init__', 'raise WeightsError(str(exc)) from None -> pass', 0):
        'unreachable: Weights raises WeightsError (a bad variant) or ConformanceError, never SpecError',
    ('constructions/values/affine.py', 'AffineWeights.dim', '1 -> 2', 0):
        'A is square: its shape[2] is its shape[1]',
    ('constructions/values/affine.py', 'AffineWeights.save', '1 -> 2', 0):
        "the JSON's indentation: load reads the same object, the checksum is over the payload",
    ('constructions/values/affine.py', 'AffineWeights.save', '1 -> 0', 0):
        "the JSON's indentation: load reads the same object, the checksum is over the payload",
    ('constructions/values/affine.py', 'AffineWeights.save', 'False -> True', 0):
        'allow_nan: every entry is finite (as_float refuses nan and inf), so no NaN is ever written',
    ('constructions/values/affine.py', '_check_shape',
     'raise WeightsError(f"{source}: \'exact\' is {exact} but the entries say otherwise") -> pass', 0):
        "unreachable from a file: the entries are decoded as 'exact' says (floats or exact numbers), "
        "so the network's exactness always agrees with it",
    # the float run as an automaton (constructions/values/floatstates.py, issue 48)
    ('constructions/values/floatstates.py', 'exact_products', '1 -> 2', 0):
        'reshape(S, -2): numpy infers any negative size, as it does -1',
    ('constructions/values/floatstates.py', 'exact_products', '0 -> 1', 1):
        'the unit given a zero matrix or row, which `big` overrides in the result',
    ('constructions/values/floatstates.py', 'exact_products',
     'bound < np.ldexp(1.0, 52 + unit) -> bound <= np.ldexp(1.0, 52 + unit)', 0):
        "the docstring's bit of slack: a sum of multiples of 2^u below 2^(53+u) in magnitude is exact, and the "
        "computed bound (exact non-negative products summed with monotone rounding) is below 2^(53+u) exactly "
        "when the true one is: the relaxed condition is still sufficient, and the check's results are the dense "
        "run's on either path (Theorem 26)",
    ('constructions/values/floatstates.py', 'exact_products', '52 -> 53', 0):
        "the docstring's bit of slack: a sum of multiples of 2^u below 2^(53+u) in magnitude is exact, and the "
        "computed bound (exact non-negative products summed with monotone rounding) is below 2^(53+u) exactly "
        "when the true one is: the relaxed condition is still sufficient, and the check's results are the dense "
        "run's on either path (Theorem 26)",
    ('constructions/values/floatstates.py', 'float_states', '1 -> 2', 0):
        "chunks of at least 2 states instead of 1: chunks give the same states, numbering and transitions "
        "(tested); the chunk is a memory bound",
    ('constructions/values/floatstates.py', 'float_states', '1 -> 2', 1):
        "A is square: its shape[2] is its shape[1]",
    ('constructions/values/floatstates.py', 'float_states', '1 -> 2', 3):
        'reshape(-2, hidden): numpy infers any negative size, as it does -1',
    ('constructions/values/floatstates.py', 'float_states', '1 -> 2', 4):
        "A is square: its shape[2] is its shape[1]",
    ('constructions/values/floatstates.py', 'walk', '1 -> 2', 0):
        'reshape(-2): numpy infers any negative size, as it does -1',
    # the float check's many-class bound (constructions/horizon/floatcheck.py, issue 48)
    ('constructions/horizon/floatcheck.py', '_Bound.__init__', '8 -> 9', 0):
        'a larger rounding slack leaves more prefixes to full scoring, whose margins are the dense run\'s: '
        'the same accuracy, first failure and worst margin',
    ('constructions/horizon/floatcheck.py', '_Bound.__init__', '8 -> 9', 1):
        'a larger rounding slack leaves more prefixes to full scoring, whose margins are the dense run\'s: '
        'the same accuracy, first failure and worst margin',
    ('constructions/horizon/floatcheck.py', '_Bound.__init__', '1 -> 0', 0):
        'the slack from the classes instead of the hidden size (classes > hidden where the bound is made): a '
        'larger slack, more prefixes scored in full, the same results',
    ('constructions/horizon/floatcheck.py', '_Bound.make', '3 * hidden + 8 -> 3 * hidden - 8', 0):
        "where the bound is tried is a cost choice: its accuracy and first failure are full scoring's, its worst margin within WORST_TOL * rho (as the tests hold it)",
    ('constructions/horizon/floatcheck.py', '_Bound.make', '3 * hidden -> 3 // hidden', 0):
        "where the bound is tried is a cost choice: its accuracy and first failure are full scoring's, its worst margin within WORST_TOL * rho (as the tests hold it)",
    ('constructions/horizon/floatcheck.py', '_Bound.make', 'automaton.n_states * (classes + hidden) > 1 << 24 -> automaton.n_states * (classes + hidden) >= 1 << 24', 0):
        "where the bound is tried is a cost choice: its accuracy and first failure are full scoring's, its worst margin within WORST_TOL * rho (as the tests hold it)",
    ('constructions/horizon/floatcheck.py', '_Bound.make', 'classes + hidden -> classes - hidden', 0):
        "where the bound is tried is a cost choice: its accuracy and first failure are full scoring's, its worst margin within WORST_TOL * rho (as the tests hold it)",
    ('constructions/horizon/floatcheck.py', '_Bound.make', '1 -> 2', 0):
        "where the bound is tried is a cost choice: its accuracy and first failure are full scoring's, its worst margin within WORST_TOL * rho (as the tests hold it)",
    ('constructions/horizon/floatcheck.py', '_Bound.make', '24 -> 25', 0):
        "where the bound is tried is a cost choice: its accuracy and first failure are full scoring's, its worst margin within WORST_TOL * rho (as the tests hold it)",
    ('constructions/horizon/floatcheck.py', '_Bound.make', 'classes < 3 * hidden + 8 or automaton.n_states * (classes + hidden) > 1 << 24 -> classes < 3 * hidden + 8 and automaton.n_states * (classes + hidden) > 1 << 24', 0):
        "where the bound is tried is a cost choice: its accuracy and first failure are full scoring's, its worst margin within WORST_TOL * rho (as the tests hold it); the cap of 2^24 numbers for the references is a memory bound",
    ('constructions/horizon/floatcheck.py', '_Bound.make', 'automaton.n_states * (classes + hidden) -> automaton.n_states // (classes + hidden)', 0):
        "where the bound is tried is a cost choice: its accuracy and first failure are full scoring's, its worst margin within WORST_TOL * rho (as the tests hold it); the cap of 2^24 numbers for the references is a memory bound",
    ('constructions/horizon/floatcheck.py', '_Bound._see', 'True -> False', 1):
        'each block takes its states\' references anew: any unit state seen in q, with its own margin, is a valid '
        'reference, so the bound and every result stay the same (only more margins of references are computed)',
    ('constructions/horizon/floatcheck.py', '_Bound.judge',
     'lo <= max(0.0, worst - self.WORST_TOL * self.rho) + self.slack -> lo < max(0.0, worst - self.WORST_TOL * self.rho) + self.slack', 0):
        'a bound exactly equal to the threshold (a sum with the slack) does not arise',
    ('constructions/horizon/floatcheck.py', '_Bound.judge', '4 * left.size > lo.size -> 4 * left.size >= lo.size', 0):
        'exactly a quarter left: the block is scored in full instead, the same results (a cost rule)',
    ('constructions/horizon/floatcheck.py', '_Bound.judge', '0 -> 1', 1):
        'the count of blocks in a row left to full scoring starts at 1 after a success: the bound is dropped one '
        'block sooner, and full scoring gives the same results (a cost rule)',
    ('constructions/horizon/floatcheck.py', '_Bound.judge', 'lo > self.slack -> lo >= self.slack', 0):
        'a bound exactly equal to the slack (8 (hidden + 8) 2^-52 rho) does not arise',
    ('constructions/horizon/floatcheck.py', '_states', '0 <= batch.min() -> 0 < batch.min()', 0):
        'a batch with a symbol 0 goes to run_batch, which gives the same states',
    ('constructions/horizon/floatcheck.py', '_states', '0 -> 1', 0):
        'a batch with a symbol 0 goes to run_batch, which gives the same states',
    ('constructions/horizon/floatcheck.py', '_states', 'True -> False', 0):
        'run_batch is reached only by batches it refuses (floats, symbols out of range; empty batches are '
        'refused before), so its trace is never read',
    ('constructions/horizon/floatcheck.py', '_table_check', '1 -> 2', 0):
        'reshape(-2): numpy infers any negative size, as it does -1',
    # the dense check's walk a block at a time (issue 48, round 6)
    ('constructions/horizon/floatcheck.py', '_states', 't0 + steps -> t0 - steps', 0):
        'the trace of run_batch is read only for batches run_batch refuses (floats, bools, symbols out of range; empty batches are refused before): never read',
    ('constructions/horizon/floatcheck.py', '_states', 't0 + steps -> t0 - steps', 1):
        'the trace of run_batch is read only for batches run_batch refuses (floats, bools, symbols out of range; empty batches are refused before): never read',
    ('constructions/horizon/floatcheck.py', '_states', '0 -> 1', 1):
        'the kept range starting at 1 instead of 0: the first block (t0 = 0) is walked either way, as from an empty range',
    ('constructions/horizon/floatcheck.py', '_states', 'kept["lo"] <= t0 <= t0 + steps <= kept["hi"] -> kept[\'lo\'] < t0 <= t0 + steps <= kept[\'hi\']', 0):
        'the first block of a span is the call that walks it: the kept range is tested only by the blocks after it, t0 > lo',
    ('constructions/horizon/floatcheck.py', '_states', 'kept["lo"] <= t0 <= t0 + steps <= kept["hi"] -> kept[\'lo\'] <= t0 < t0 + steps <= kept[\'hi\']', 0):
        'a block has at least one step: t0 < t0 + steps whenever t0 <= t0 + steps',
    ('constructions/horizon/floatcheck.py', '_states', '-_WALK_STEPS // steps -> -_WALK_STEPS * steps', 0):
        'a longer read-ahead (whole blocks, cut at the words\' end): memory, not the states',
    ('constructions/horizon/floatcheck.py', '_states', 'kept["q"].shape[0] < span -> kept[\'q\'].shape[0] <= span', 0):
        'the buffers made again at an equal size: the same states',
    ('constructions/horizon/floatcheck.py', '_states', '0 -> 1', 3):
        'spans never grow after the first (the same block steps, the last one shorter): the buffers are made once either way',
    # the readout scored in chunks and the norms by a product (issue 48, round 8)
    ('constructions/horizon/floatcheck.py', 'label_margins', '1 -> 0', 0):
        'one class through the general path: its own score less the largest other (-inf once it is put) is +inf, '
        'the value returned directly',
    ('constructions/horizon/floatcheck.py', 'label_margins', '0 -> 1', 1):
        "a call's own buffers made for 1 class instead of 0: the classes size only the scores' buffer, which "
        'label_margins does not use',
    ('constructions/horizon/floatcheck.py', 'label_margins', '1 -> 2', 3):
        'labels.reshape(-2): numpy infers any negative size, as it does -1',
    ('constructions/horizon/floatcheck.py', '_chunk_margins', '1 -> 2', 0):
        'reshape(-2): numpy infers any negative size, as it does -1',
    ('constructions/horizon/floatcheck.py', '_chunk_margins', '1 -> 2', 2):
        'reshape(-2): numpy infers any negative size, as it does -1',
    ('constructions/horizon/floatcheck.py', '_row_margins', '0 < work.chunk < n -> 0 < work.chunk <= n', 0):
        'exactly one chunk of rows through the chunk size instead of as one chunk of n: the same layout and margins',
    ('constructions/horizon/floatcheck.py', '_row_margins', '0 -> 1', 2):
        'a chunk size of 1 taken as none: chunks are 0 or at least 64 rows (_chunk_rows)',
    ('constructions/horizon/floatcheck.py', '_row_margins', '1 -> 0', 0):
        'max(n, 0) instead of max(n, 1): differs only for no rows, and no caller scores none (a block has a step '
        'of at least one word, the table at least one pair)',
    ('constructions/horizon/floatcheck.py', '_Work.__init__', '0 -> 1', 1):
        "squares of 1 column by default: a buffer made without the hidden size is never handed to _norms",
    ('constructions/horizon/floatcheck.py', '_chunk_rows', 'hidden < 8 -> hidden <= 8', 0):
        'where chunks start (8 hidden units scored at once): speed only, the margins are the same (tested: chunked '
        'and at once against the plain loop)',
    ('constructions/horizon/floatcheck.py', '_chunk_rows', '8 -> 9', 0):
        'where chunks start (8 hidden units scored at once): speed only, the margins are the same (tested: chunked '
        'and at once against the plain loop)',
    ('constructions/horizon/floatcheck.py', '_norms', 'flat.shape[1] <= 3 -> flat.shape[1] < 3', 0):
        'three columns summed by the product instead of the column loop: the same sums of squares up to one rounding '
        '(tested to 1e-15), and the table and the dense run still call the same one for the same hidden size',
    ('constructions/horizon/floatcheck.py', '_norms', '3 -> 4', 0):
        'four columns summed by the column loop instead of the product: the same sums of squares up to one rounding '
        '(tested to 1e-15), and the table and the dense run still call the same one for the same hidden size',
    ('constructions/horizon/floatcheck.py', '_norms', '1 -> 0', 0):
        'the column loop for blocks of at most 3 rows: the same sums of squares up to one rounding (tested to 1e-15); '
        'exact rows (the table) sum exactly either way',
    ('constructions/values/floatstates.py', 'float_states', 'CHUNK_FLOATS // (A.shape[0] * A.shape[1]) -> CHUNK_FLOATS * (A.shape[0] * A.shape[1])', 0):
        'the frontier in larger chunks: memory, not the states (one state a chunk is tested against the whole frontier)',
    ('constructions/values/floatstates.py', 'float_states', '0 -> 1', 4):
        'another chunk size (hidden x hidden entries a state instead of symbols x hidden): memory, not the states',
    ('constructions/values/floatstates.py', 'float_states', '1 -> 0', 1):
        'another chunk size (symbols x symbols entries a state instead of symbols x hidden): memory, not the states',
    ('constructions/values/floatstates.py', 'walk', 'np.ndim(first) == 0 -> np.ndim(first) != 0', 0):
        "either way the start broadcasts to the batch: a scalar start as a 0-d array, a start per word as np.full's fill",
    ('constructions/values/floatstates.py', 'walk', '0 -> 1', 0):
        "either way the start broadcasts to the batch: a scalar start as a 0-d array, a start per word as np.full's fill",
    # the ball norms (constructions/exact/balls.py, issue 48)
    ('constructions/exact/balls.py', 'op_norm', 'not rows or not cols -> not rows and (not cols)', 0):
        'with one side empty the sub-matrix is empty: its Frobenius norm is 0 and its B has no rows, so 0 is '
        'returned either way (tested)',
    ('constructions/exact/balls.py', 'op_norm', 'inf > 0 -> inf >= 0', 0):
        'inf is 0 only for B exactly 0: then the trace of M^T M is 0 too, so the shortcut is not taken, and the '
        'next test (not inf > 0) returns the Frobenius norm (0) either way (tested)',
    # the leader clusters of an extraction (target extract_clusters)
    ('analysis/clusters.py', '_Clusters._add', '1 -> 2', 0):
        'on overflow -2 is as negative as -1: assign breaks out of its loop on any negative id',
    ('analysis/clusters.py', '_Clusters._add', '1 -> 2', 1):
        'the capacity of the array of centres only: a centre is written at index k < max_states, which every one '
        'of these capacities holds, and only centres[:k] and sq[:k] are read',
    ('analysis/clusters.py', '_Clusters._add', '1 -> 0', 1):
        'the capacity of the array of centres only: a centre is written at index k < max_states, which every one '
        'of these capacities holds, and only centres[:k] and sq[:k] are read',
    ('analysis/clusters.py', '_Clusters._add', '2 -> 3', 0):
        'the capacity of the array of centres only: a centre is written at index k < max_states, which every one '
        'of these capacities holds, and only centres[:k] and sq[:k] are read',
    ('analysis/clusters.py', '_Clusters._add', 'grow - self.k -> grow + self.k', 1):
        'the capacity of the array of centres only: a centre is written at index k < max_states, which every one '
        'of these capacities holds, and only centres[:k] and sq[:k] are read',
    ('analysis/clusters.py', '_Clusters.assign', '1 -> 2', 3):
        'not proved: the distance to the new centre read from column 0 of a two-column product (the next slot of the '
        'centres beside it): the same sums of the same products, whose order BLAS may choose otherwise for two columns '
        '(a last-bit difference at most); no test row lies within a last bit of the radius',
    ('analysis/clusters.py', '_Clusters.assign', '1 -> 2', 4):
        'not proved: as the entry above, for the centres\' squared norms (column 0 is the new centre\'s, the same number)',
    ('analysis/clusters.py', '_Clusters.__init__', '64 -> 65', 0):
        'capacity only: the array of centres starts with this many rows and grows as needed (_add: to min(max_states + 1, twice its size) when k reaches it), and only centres[:k] and sq[:k] are read',
    ('analysis/clusters.py', '_Clusters.__init__', '1 -> 2', 0):
        'capacity only: the array of centres starts with this many rows and grows as needed (_add: to min(max_states + 1, twice its size) when k reaches it), and only centres[:k] and sq[:k] are read',
    ('analysis/clusters.py', '_Clusters.__init__', '1 -> 0', 0):
        'capacity only: min(max_states, 64) rows, at least 1 for max_states >= 1 (ExtractConfig checks it), and '
        'the array grows as needed; for max_states = 0 the zero-row array is never written nor read (_add '
        'overflows before writing, assign reads centres[:0] only when k > 0, bounds returns for k < 2; tested)',
    # the behavioural signatures of an extraction (target extract_clusters)
    ('analysis/clusters.py', '_Signatures.assign', '1 -> 2', 6):
        'inverse.reshape(-2): numpy reads any negative size as the unknown one, the same flat array as '
        'reshape(-1)',
    # the clustered node sets' split (target cluster_labels)
    ('constructions/horizon/horizon_nodes.py', '_cluster_labels', '2 -> 3', 1):
        'a larger factor in the bound that skips rows (2 (1 + 1e-8) dmin) only measures more rows; a measured row moves only when its distance is below dmin, so the labels are those of measuring every row either way',
    ('constructions/horizon/horizon_nodes.py', '_cluster_labels', '1 -> 2', 6):
        'a larger factor in the bound that skips rows (2 (1 + 1e-8) dmin) only measures more rows; a measured row moves only when its distance is below dmin, so the labels are those of measuring every row either way',
    ('constructions/horizon/horizon_nodes.py', '_cluster_labels',
     'table.take(flat + nearest) >= 2 * (1 + 1e-8) * dmin -> table.take(flat + nearest) > 2 * (1 + 1e-08) * dmin', 0):
        'only a row whose seeds lie exactly twice (1 + 1e-8) its distance apart is measured too; by the triangle '
        'inequality its computed distance to the new seed is then above dmin (1 + 1e-8 minus rounding), so it does '
        'not move',
    ('constructions/exact/balls.py', 'op_norm', 'low > 0 -> low >= 0', 0):
        'at low = 0 the root is 0, never above the bound (exp of a finite ball: above 0): the shortcut is not '
        'taken either way',
    ('constructions/exact/balls.py', 'op_norm', '0 -> 1', 3):
        'the shortcut only skipped for traces below 1: the Frobenius bound is then computed and compared, and '
        'the smaller of the two is the bound the shortcut returns (it returns only when the bound is the smaller)',
    ('constructions/exact/balls.py', 'op_norm', 'low.sqrt().lower() > bound -> low.sqrt().lower() >= bound', 0):
        'at equality the Frobenius bound is at least the root, so at least the bound: the comparison below '
        'returns the bound or an equal exact point',
    ('constructions/exact/balls.py', 'op_norm', 'bound < whole -> bound <= whole', 0):
        'both are exact points: when equal, either is the same ball',
    # the node horizon's tables (constructions/horizon/horizon_nodes.py, issue 48)
    ('constructions/horizon/horizon_nodes.py', 'NodeSets.reentry_norm', '1 -> 2', 0):
        'one block sent down the blocks path: its diagonal block is the whole matrix, so it gets the same op_norm, '
        'only capped by a float Frobenius norm of the magnitudes (above the 2-norm): a valid bound, equal to op_norm\'s '
        'but for the last bits (op_norm is already at most the ball Frobenius norm)',
    ('constructions/horizon/horizon_nodes.py', 'NodeSets._tables', 'n > len(self._have) -> n >= len(self._have)', 0):
        'growing the tables by 0 rows leaves them as they are',
    ('constructions/horizon/horizon_nodes.py', 'NodeSets._tables', 'n - len(self._have) -> n + len(self._have)', 0):
        'the tables grow by more rows than suffixes: the extra rows are marked not filled and filled when their '
        'suffix is numbered, the same values (more memory)',
    ('constructions/horizon/horizon_nodes.py', 'NodeSets.reentry_norm', '1 -> 0', 1):
        'a 1x1 diagonal block bounded by op_norm (the 32nd root of m^32, capped by the Frobenius norms) instead of '
        'its magnitude: |m| either way but for the last bits, still an upper bound',
    ('constructions/horizon/horizon_nodes.py', 'NodeSets.reentry_norm', 'not tail -> tail', 1):
        'the cache of the one-step norms (_re_one) is filled only for an empty tail, so it is never read with a '
        'tail: every call computes the same norms (a cache)',
    ('constructions/horizon/horizon_nodes.py', 'NodeSets.reentry_norm', 'not tail -> tail', 2):
        'the cache then holds a tail\'s norms but is read only for an empty tail, and ages fix whether tails are '
        'empty (all of them or none): never read, every call computes the same norms (a cache)',
    ('constructions/horizon/horizon_nodes.py', 'NodeSets.reentry_norm', '1 -> 0', 0):
        'one block sent down the blocks path: its diagonal block is the whole matrix, so it gets the same op_norm, '
        'only capped by a float Frobenius norm of the magnitudes (above the 2-norm): a valid bound, equal to op_norm\'s '
        'but for the last bits (op_norm is already at most the ball Frobenius norm)',
    # Theorem 16's global horizon (constructions/horizon/horizon_global.py)
    ('constructions/horizon/horizon_global.py', 'iterate', '1 -> 2', 0):
        "the loop's one more t = STEPPED + 1 checks the same (u, v) as t = STEPPED (no step is taken at STEPPED): "
        "it fails there only where t = STEPPED failed first (s <= MAX_EXHAUSTIVE_DEPTH = 32: the exhaustive "
        "start's depth, from global_horizon, its one caller)",
    ('constructions/horizon/horizon_global.py', 'closed_form', 'a > 0 -> a >= 0', 0):
        "a = hi(...) is an exact point: at a = 0 it is the point 0 itself, the same as flint.arb(0)",
    ('constructions/horizon/horizon_global.py', 'closed_form', '1 -> 0', 2):
        "caps[0:] instead of caps[1:]: the smallest lower end over the same caps, the first one compared with itself",
    ('constructions/horizon/horizon_global.py', 'closed_form', 'lo(x) < u_max -> lo(x) <= u_max', 0):
        "at equality the same exact point is assigned again",
    ('constructions/horizon/horizon_global.py', 'closed_form', 'low > 0 -> low >= 0', 0):
        "a lower end that is not finite is -inf (lo maps a ball that is not finite to -inf, and a finite ball's "
        "lower end is finite): neither > 0 nor >= 0",
    ('constructions/horizon/horizon_global.py', 'closed_form', '0 -> 1', 6):
        "a lower end that is not finite is -inf (lo): neither > 0 nor > 1",
    ('constructions/horizon/horizon_global.py', '_margins', 'm < mu -> m <= mu', 0):
        "at equality the same exact point (lo) is kept",
    ('constructions/horizon/horizon_global.py', '_orthonormal_dropped', '0 -> 1', 0):
        "the basis P is square: its column count is its row count",
    ('constructions/horizon/horizon_global.py', '_real_part', '4 -> 5', 0):
        "zip stops at the shorter: the first four of the key are compared either way (the fifth, the bool "
        "orthonormal, is compared with == after)",
    ('constructions/horizon/horizon_global.py', '_real_part', '4 -> 5', 1):
        "zip stops at the shorter: the first four of the key are compared either way",
    ('constructions/horizon/horizon_global.py', '_real_part', '0 -> 1', 9):
        "the newest entry inserted at index 1, not 0: the first entry stays at 0 (never evicted, one more kept "
        "alive), and every lookup still finds its own key's values, made by the same computation",
    ('constructions/horizon/horizon_global.py', '_real_part', '4 -> 5', 3):
        "the cache keeps five entries instead of four: the same values, made once more or once less",
    ('constructions/horizon/horizon_global.py', 'ingredients', 'x0 + column([flint.arb(0, start)] * d) -> x0 - column([flint.arb(0, start)] * d)', 0):
        "a ball centred at 0 is symmetric: x - [0 +- r] is x + [0 +- r]",
    ('constructions/horizon/horizon_global.py', '_round', 'x + column([flint.arb(0, r)] * x.nrows()) -> x - column([flint.arb(0, r)] * x.nrows())', 0):
        "a ball centred at 0 is symmetric: x - [0 +- r] is x + [0 +- r]",
    ('constructions/horizon/horizon_global.py', 'exhaustive', '0 -> 1', 4):
        "nx is read only as tau * nx, and this branch is taken where tau = 0: 0 either way",
    # Theorem 17's invariant tube (constructions/horizon/tube.py)
    ('constructions/horizon/tube.py', '_tube', 'alpha > 0 -> alpha >= 0', 0):
        "alpha = 0 exactly sent on to _tube_radius, which refuses it there: alpha - b r > 0 fails for b >= 0 "
        "(a Frobenius norm plus delta) and r > 0 (dyadic_up(1.01 lo + 1e-300)); a ball around 0 is >= 0 no more "
        "certainly than > 0",
    ('constructions/horizon/tube.py', '_tube_radius', 'disc < 0 -> disc <= 0', 0):
        "a double root: the condition b r^2 + (n - alpha) r + z <= 0 holds only at the root, and r is taken 1% "
        "above it (dyadic_up(1.01 lo + 1e-300)), where the ball check fails: refused either way",
    ('constructions/horizon/tube.py', '_tube_radius', 'r >= r0 -> r > r0', 0):
        "r = dyadic_up(1.01 lo + 1e-300) with lo >= float(r0): above r0 by 1% (r0 > 0; a float is within 2^-53 "
        "of it) or positive (r0 = 0), never equal to it",
    # Theorem S5: the automata of a stack's layers (constructions/horizon/horizon_stack.py)
    ('constructions/horizon/horizon_stack.py', 'layer_automaton', '1 -> 2', 0):
        _LAYER_LABELS,
    ('constructions/horizon/horizon_stack.py', 'layer_automaton', '1 -> 0', 0):
        _LAYER_LABELS,
    ('constructions/horizon/horizon_stack.py', 'float_layer_automaton', '1 -> 2', 1):
        "one more row of reps, never written nor read: reps[found] is written only while found < limit (at "
        "found == limit it returns first), and only reps[:found] is read",
    ('constructions/horizon/horizon_stack.py', 'float_layer_automaton', '1 -> 0', 1):
        "reps of limit rows: reps[found] is written only while found < limit (at found == limit it returns "
        "first), so row limit is never used for any limit >= 1, and a limit below 1 is refused before reps is made",
    # exact cyclotomic fields (constructions/exact/field.py)
    ('constructions/exact/field.py', 'FieldElement.poly', '1 -> 2', 0):
        _FIELD_LONGER,
    ('constructions/exact/field.py', 'FieldElement.poly', '0 -> 1', 1):
        "empty terms make the list [0] instead of []: both the zero polynomial",
    ('constructions/exact/field.py', 'FieldElement.embed', 'len(cs) - 1 -> len(cs) + 1', 0):
        _FIELD_LONGER,
    ('constructions/exact/field.py', 'FieldElement.embed', '1 -> 0', 0):
        _FIELD_LONGER,
    ('constructions/exact/field.py', 'FieldElement.embed', '1 -> 2', 1):
        _FIELD_LONGER,
    ('constructions/exact/field.py', 'FieldElement._coerce', 'True -> False', 0):
        _FIELD_REDUCED,
    ('constructions/exact/field.py', 'FieldElement.__add__', 'True -> False', 0):
        _FIELD_REDUCED,
    ('constructions/exact/field.py', 'FieldElement.__sub__', 'True -> False', 0):
        _FIELD_REDUCED,
    ('constructions/exact/field.py', 'FieldElement.__rsub__', 'True -> False', 0):
        _FIELD_REDUCED,
    ('constructions/exact/field.py', 'FieldElement.__neg__', 'True -> False', 0):
        _FIELD_REDUCED,
    ('constructions/exact/field.py', 'FieldElement.__mul__', 'b.poly.degree() <= 0 or a.poly.degree() <= 0 -> b.poly.degree() <= 0 and a.poly.degree() <= 0', 0):
        "a product with one constant factor sent to the general branch, which reduces it: " + _FIELD_REDUCED,
    ('constructions/exact/field.py', 'FieldElement.__mul__', 'b.poly.degree() <= 0 -> b.poly.degree() < 0', 0):
        "a product with a constant factor sent to the general branch, which reduces it: " + _FIELD_REDUCED,
    ('constructions/exact/field.py', 'FieldElement.__mul__', 'a.poly.degree() <= 0 -> a.poly.degree() < 0', 0):
        "a product with a constant factor sent to the general branch, which reduces it: " + _FIELD_REDUCED,
    ('constructions/exact/field.py', 'FieldElement.__mul__', 'True -> False', 0):
        _FIELD_REDUCED,
    ('constructions/exact/field.py', 'FieldElement.inverse', 'True -> False', 0):
        "the inverse of a constant is a constant: " + _FIELD_REDUCED,
    ('constructions/exact/field.py', 'FieldElement.inverse', 's * (1 / g.coeffs()[0]) -> s // (1 / g.coeffs()[0])', 0):
        "FLINT's fmpq_poly xgcd returns the monic gcd, g = 1 (Phi_m is irreducible): s * 1 and s // 1 are both s",
    ('constructions/exact/field.py', 'FieldElement.__pow__', 'True -> False', 0):
        _FIELD_REDUCED,
    ('constructions/exact/field.py', 'FieldElement.__eq__', 'a._poly is None or b._poly is None -> a._poly is None and b._poly is None', 0):
        _FIELD_SPARSE_EQ,
    ('constructions/exact/field.py', 'FieldElement.__eq__', 'a._poly is None -> a._poly is not None', 0):
        _FIELD_SPARSE_EQ,
    ('constructions/exact/field.py', 'FieldElement.__eq__', 'b._poly is None -> b._poly is not None', 0):
        _FIELD_SPARSE_EQ,
    ('constructions/exact/field.py', 'FieldElement.__hash__', 'self * self -> self // self', 0):
        "unreachable: _real_floor returns None only when unique_fmpz of floor(mid) is None, and the floor of an arb "
        "midpoint (exact, finite: arb exponents do not overflow) is an exact integer",
    ('constructions/exact/field.py', 'FieldElement._real_floor', '3 -> 4', 0):
        _FIELD_FLOOR_BALL,
    ('constructions/exact/field.py', 'FieldElement._real_floor', 'n is None -> n is not None', 0):
        "the balls never return (continue whenever n is found): " + _FIELD_FLOOR_BALL + "; int(None) would need "
        "a midpoint whose floor is not an exact integer, which never happens (see the __hash__ entry)",
    ('constructions/exact/field.py', 'FieldElement._real_floor', 're > n -> re >= n', 0):
        "a ball inside [n, n + 1) contains 2^32 Re x, whose floor is then n: the same floor",
    ('constructions/exact/field.py', 'FieldElement._real_floor', 're < n + 1 -> re <= n + 1', 0):
        "differs only for a ball inside (n, n + 1] whose upper end is exactly the integer 2^32 Re x = n + 1 (arb's "
        "rounded-up radius landing exactly on the value); not seen on any grid point tried, not provably impossible",
    ('constructions/exact/field.py', 'FieldElement._real_floor', 'n + 1 -> n - 1', 0):
        _FIELD_FLOOR_BALL,
    ('constructions/exact/field.py', 'FieldElement._real_floor', '1 -> 0', 0):
        _FIELD_FLOOR_BALL,
    ('constructions/exact/field.py', 'FieldElement.conjugate', 'len(cs) <= 1 -> len(cs) < 1', 0):
        _FIELD_CONST_CONJ,
    ('constructions/exact/field.py', 'FieldElement.conjugate', '1 -> 0', 0):
        _FIELD_CONST_CONJ,
    ('constructions/exact/field.py', 'FieldElement.is_real', 'self.poly.degree() <= 0 -> self.poly.degree() < 0', 0):
        "a constant then takes the exact test conjugate() == self, true for a constant: the same answer",
    ('constructions/exact/field.py', 'FieldElement.__abs__', 'self.sign() < 0 -> self.sign() <= 0', 0):
        "-0 is 0: abs(0) is 0 either way",
    ('constructions/exact/field.py', 'FieldElement.__abs__', '0 -> 1', 0):
        "sign() is -1, 0 or 1, where < 1 is <= 0; and -0 is 0: abs(0) is 0 either way",
    ('constructions/exact/field.py', 'FieldElement.ball', '64 -> 65', 0):
        "ball()'s default precision: a ball at 65 bits contains the element as one at 64 does (its contract); every "
        "caller in the package passes a precision",
    ('constructions/exact/field.py', 'FieldElement.__complex__', '64 -> 65', 0):
        _FIELD_FLOAT_BITS,
    ('constructions/exact/field.py', 'FieldElement.__float__', '64 -> 65', 0):
        _FIELD_FLOAT_BITS,
    ('constructions/exact/field.py', 'FieldElement.sign', 'c > 0 -> c >= 0', 0):
        _FIELD_NONZERO,
    ('constructions/exact/field.py', 'FieldElement.__repr__', 'c < 0 -> c <= 0', 0):
        _FIELD_NONZERO,
    ('constructions/exact/field.py', 'FieldElement.__repr__', 'c < 0 -> c <= 0', 1):
        _FIELD_NONZERO,
    ('constructions/exact/field.py', 'real_poly_sign', '0 -> 1', 1):
        "no real element has a reduced polynomial of degree 1 (a + b zeta_m with b != 0 is not real for m >= 3, and "
        "phi(m) = 1 for m <= 2), so none takes the constant branch; the constants go to the balls, which decide a "
        "non-zero rational's sign as the branch does",
    ('constructions/exact/field.py', 'real_poly_sign', 'poly.coeffs()[0] > 0 -> poly.coeffs()[0] >= 0', 0):
        _FIELD_NONZERO,
    ('constructions/exact/field.py', 'real_poly_sign', 're > 0 -> re >= 0', 0):
        "the value is non-zero (tested exactly first) and lies in the ball: a ball of points all >= 0 holds a "
        "value > 0, the same sign",
    ('constructions/exact/field.py', 'real_poly_sign', 're < 0 -> re <= 0', 0):
        "the value is non-zero (tested exactly first) and lies in the ball: a ball of points all <= 0 holds a "
        "value < 0, the same sign",
    # the failing-word search (constructions/horizon/failsearch.py, target failsearch)
    ('constructions/horizon/failsearch.py', 'first_failures', 'np.linalg.norm(h0) or 1.0 -> np.linalg.norm(h0) and 1.0', 0):
        'not proved equivalent: s0 is only compared, and h0 (rescaled into [1/2, 1)) not divided by its '
        'norm multiplies every start score by one positive factor, the same strict argmax up to rounding '
        '(two start scores within an ulp of each other could compare differently); a zero h0 gives 0 (a '
        'tie) or NaN, a failure at 0 either way',
    ('constructions/horizon/failsearch.py', 'first_failures', 'words.shape[1] == 0 or R.shape[0] == 1 -> words.shape[1] == 0 and R.shape[0] == 1', 0):
        "a one-class readout's margins are +inf (label_margins' first line), never <= 0, and words of no symbols "
        'run no step: the same result either way (every word -1)',
    ('constructions/horizon/failsearch.py', 'first_failures', '1 -> 0', 2):
        'words.shape[0] == 0 for words.shape[1] == 0: no words give an empty result either way, and words '
        'of no symbols run no step of the loop (run_batch takes them): every word -1 either way',
    ('constructions/horizon/failsearch.py', 'first_failures', '1 -> 0', 3):
        'R.shape[0] == 0 never holds; a one-class readout then runs with margins +inf (label_margins), never <= '
        '0: every word -1 either way',
    ('constructions/horizon/failsearch.py', 'first_failures', 'first < 0 -> first <= 0', 0):
        'inside the loop first holds -1 or a length t + 1 >= 1 (a failure at 0 returns before it): < 0, <= '
        '0 and < 1 pick the same words',
    ('constructions/horizon/failsearch.py', 'first_failures', '0 -> 1', 6):
        'inside the loop first holds -1 or a length t + 1 >= 1 (a failure at 0 returns before it): < 0, <= '
        '0 and < 1 pick the same words',
    ('constructions/horizon/failsearch.py', '_loops', '4096 -> 4097', 0):
        'no integer k has k^3 = 4097: k^3 > 4096 and k^3 > 4097 agree',
    ('constructions/horizon/failsearch.py', '_loops', 'np.linalg.norm(h) or 1.0 -> np.linalg.norm(h) and 1.0', 0):
        'not proved equivalent: every drift is linear in the start y, so y = h instead of h / |h| '
        'multiplies every drift by |h| > 0, the same ranking up to rounding (two drifts within an ulp of '
        'each other could swap); a zero h gives NaN drifts instead of zeros, which the stable sort leaves '
        'in the same order',
    ('constructions/horizon/failsearch.py', '_certificate_words', 'len(out) >= limit -> len(out) > limit', 0):
        "the loop may add one more state's words, which out[:limit] drops: the same list",
    ('constructions/horizon/failsearch.py', 'search_failure', '0 -> 1', 1):
        "a default floor of 1: every word of one symbol is the start of a symbol's power, run first, so a "
        'failure of one symbol is the best before any exit or beam (top 0, neither runs); otherwise no word '
        'of one symbol fails, and a floor of 1 only keeps the exits and the beam from confirming one (and '
        'the beam from running at top 1, where it could find only one)',
    ('constructions/horizon/failsearch.py', 'search_failure', 'top > floor -> top >= floor', 0):
        "at top == floor the exits' words have floor - 1 symbols, so every candidate has at most floor, "
        'dropped by first > floor; top == floor == 0 is a best of one symbol (no exit of two or more is '
        'shorter) or words of no symbols (none)',
    ('constructions/horizon/failsearch.py', 'search_failure', 'len(found) < len(best) -> len(found) <= len(best)', 0):
        "the exits' words have top - 1 <= len(best) - 2 symbols: every candidate, and the word found, has "
        'at most len(best) - 1',
    ('constructions/horizon/failsearch.py', 'search_failure', 'len(best) - 1 -> len(best) + 1', 2):
        "the beam's range after an exit: the beam's steps below len(best) are the same and it returns its "
        'first failure; one of len(best) symbols or more is not strictly shorter and is not kept',
    ('constructions/horizon/failsearch.py', 'search_failure', '1 -> 0', 5):
        "the beam's range after an exit: the beam's steps below len(best) are the same and it returns its "
        'first failure; one of len(best) symbols or more is not strictly shorter and is not kept',
    ('constructions/horizon/failsearch.py', 'search_failure', 'top > floor -> top >= floor', 1):
        'the beam runs only where beam_worth_running held before the exits (top > floor then); at top == '
        'floor after them it confirms nothing (only past floor symbols) and returns None',
    ('constructions/horizon/failsearch.py', 'search_failure', 'len(found) < len(best) -> len(found) <= len(best)', 1):
        'the beam runs to top <= len(best) - 1 symbols: its word is shorter than the best',
    ('constructions/horizon/failsearch.py', 'exit_failure', 'R.shape[0] < 2 or words.size == 0 -> R.shape[0] < 2 and words.size == 0', 0):
        "a one-class readout's margins are +inf (label_margins' first line), never <= 0, and words of no symbols "
        'run no step: the same result either way (None)',
    ('constructions/horizon/failsearch.py', 'exit_failure', '1 -> 2', 0):
        'As.shape[2] for As.shape[1]: the matrices are square',
    ('constructions/horizon/failsearch.py', 'exit_failure', 't + 2 <= floor -> t + 2 < floor', 0):
        'the candidates of step t have t + 2 symbols: those of a step run here in addition (t + 2 = floor) '
        'fail at floor symbols or fewer, dropped by first > floor',
    ('constructions/horizon/failsearch.py', 'exit_failure', '2 -> 3', 2):
        't + 3 <= floor skips fewer steps: the candidates of the step run in addition (t + 2 = floor) fail '
        'at floor symbols or fewer, dropped by first > floor',
    ('constructions/horizon/failsearch.py', 'exit_failure', '256 -> 257', 0):
        'not proved equivalent: a 257th candidate is confirmed only when more than 256 fail at one step in '
        "the fast run and none of the first 256 is kept by first_failures' run (a rounding disagreement on "
        '256 words, or, outside a certified floor, prefixes failing at floor symbols or fewer); every kept '
        "candidate of a step fails at the step's length, so the first kept is the same otherwise",
    ('constructions/horizon/failsearch.py', 'beam_failure', 'R.shape[0] < 2 or length < 1 -> R.shape[0] < 2 and length < 1', 0):
        "a one-class readout's margins are +inf (label_margins' first line), never <= 0, and words of no symbols "
        'run no step: the same result either way (None after the steps; a length below 1 runs none)',
    ('constructions/horizon/failsearch.py', 'beam_failure', '1 -> 0', 0):
        'length < 0 for length < 1: a length of 0 runs no step (range(0)): None either way',
    ('constructions/horizon/failsearch.py', 'beam_failure', '1 -> 2', 1):
        'A.shape[2] for A.shape[1]: the matrices are square',
    ('constructions/horizon/failsearch.py', 'beam_failure', 'np.linalg.norm(h0) or 1.0 -> np.linalg.norm(h0) and 1.0', 0):
        "not proved equivalent: the start not divided by its norm multiplies the first step's states and "
        'margins by |h0| > 0 (rescaled: within [1/2, 1)), the same signs and order up to rounding, and '
        'every later state is normalised; two margins within rounding of each other (or of 0) could be '
        "ordered or judged differently, and a zero start (wrong at 0, outside the floor's contract) gives "
        'NaN instead of 0',
    ('constructions/horizon/failsearch.py', 'beam_failure', '_t + 1 > floor -> _t + 1 >= floor', 0):
        "a certified floor: no word of floor symbols or fewer fails in first_failures' run, so a candidate "
        'of floor symbols, confirmed there, is never kept',
    ('constructions/horizon/failsearch.py', 'beam_failure', '1 -> 2', 4):
        "a certified floor: no word of floor symbols or fewer fails in first_failures' run, so a candidate "
        'of floor symbols, confirmed there, is never kept (_t + 2 > floor: the step of floor symbols '
        'confirmed too)',
    ('constructions/horizon/failsearch.py', 'beam_failure', 'first >= 0 -> first > 0', 0):
        'first is 0 only where the empty word fails, which the floor (no word of floor >= 0 symbols or '
        'fewer fails) excludes; search_failure runs no beam then (its best is the empty word)',
    ('constructions/horizon/failsearch.py', 'beam_failure', '0 -> 1', 8):
        'first >= 1 for first >= 0: first is 0 only where the empty word fails, which the floor (no word of '
        'floor >= 0 symbols or fewer fails) excludes; search_failure runs no beam then',
    ('constructions/horizon/failsearch.py', 'shorten_failure', 'len(word) <= max(1, floor + 1) -> len(word) < max(1, floor + 1)', 0):
        'a word of max(1, floor + 1) symbols goes on to the loop, where every deletion leaves floor symbols '
        'or fewer (not run) or the empty word (no change of period): no run, the same word',
    ('constructions/horizon/failsearch.py', 'shorten_failure', '1 -> 0', 0):
        'floor >= 0: max(0, floor + 1) = max(1, floor + 1)',
    ('constructions/horizon/failsearch.py', 'shorten_failure', 'floor + 1 -> floor - 1', 0):
        'a failing word has more than floor symbols (the floor is certified); one of floor + 1 goes on to '
        'the loop, where every deletion leaves floor or fewer, not run: the same word, no run',
    ('constructions/horizon/failsearch.py', 'shorten_failure', '1 -> 0', 1):
        'max(1, floor): a word of floor + 1 symbols goes on to the loop, where every deletion leaves floor '
        'or fewer, not run: the same word, no run',
    ('constructions/horizon/failsearch.py', 'shorten_failure', '1 -> 0', 2):
        'len(word) >= 2 here (shorter words returned before): len(word) // 2 >= 1',
    ('constructions/horizon/failsearch.py', 'shorten_failure', 'len(word) // 2 -> len(word) * 2', 0):
        'sizes 2 len(word) (no start) and len(word) (its one deletion leaves the empty word, and there is '
        'no change of period) try nothing, and halving 2 len(word) twice gives len(word) // 2: the same '
        'runs',
    ('constructions/horizon/failsearch.py', 'shorten_failure', 'time.monotonic() < deadline -> time.monotonic() <= deadline', 0):
        'a clock reading equal to the deadline, to the nanosecond',
    ('constructions/horizon/failsearch.py', 'shorten_failure', '1 -> 0', 5):
        'max(0, size) = size = max(1, size): size >= 1 in the loop',
    ('constructions/horizon/failsearch.py', 'shorten_failure', 'len(starts) > batch -> len(starts) >= batch', 0):
        'len(starts) == batch: np.linspace(0, n - 1, n) is 0, 1, ..., n - 1 exactly, the same starts',
    ('constructions/horizon/failsearch.py', 'shorten_failure', '1 -> 2', 8):
        'no start is negative: a last change at -2 or at -1 lets none run',
    ('constructions/horizon/failsearch.py', 'shorten_failure', 'first >= 0 -> first > 0', 0):
        'first is 0 only where the empty word fails, and then the shortest failing prefix the docstring '
        'asks for is the empty word, returned at once',
    ('constructions/horizon/failsearch.py', 'shorten_failure', '0 -> 1', 4):
        'first >= 1 for first >= 0: first is 0 only where the empty word fails, and then the shortest '
        'failing prefix the docstring asks for is the empty word, returned at once',
    ('constructions/horizon/failsearch.py', 'shorten_failure', 'first < len(word) -> first <= len(word)', 0):
        'first <= lens = len(word) - size < len(word) for every candidate the test before it keeps',
    ('constructions/horizon/failsearch.py', 'shorten_failure', '1 -> 0', 9):
        'len(word) // 2 is 0 only for a word of one symbol, whose one deletion leaves the empty word (and '
        'no change of period): size 0 or 1 runs nothing and ends',
    # analysis/certify.py: the certificate of a float network (target certify_network)
    ('analysis/certify.py', 'exact_margin_sign', '0 -> 1', 2):
        "a state of size n in (0, 1] left unrescaled: the rescaling multiplies by a power of two, exact in arb "
        "(midpoint and radius scaled exactly, exponents unbounded, rounding relative), so every later ball is the "
        "same ball times a power of two and every margin's sign the same; n only chooses the power",
    ('analysis/certify.py', 'exact_margin_sign', '256 -> 257', 0):
        "not proved equivalent: one bit more precision gives balls at most as wide, so the mutant can decide a sign "
        "where 256 bits return None (a word near the length where the balls' growth, |A| entrywise a step, swallows "
        "the margin); the signs it decides are the true ones either way, and no test word sits on that edge",
    ('analysis/certify.py', 'exact_margin_sign', 'd > 0 -> d >= 0', 1):
        "not proved equivalent: reached only with no margin certainly negative and not all certainly positive; "
        "d >= 0 differs from d > 0 or d == 0 exactly only for a ball of positive radius whose lower end is exactly "
        "0 (mid - rad == 0 after 256-bit rounding), which no float weights met in the tests produce",
    # analysis/certify.py: the certificate of a float stack (target certify_stack)
    ('analysis/certify.py', 'certify_stack', 'snap is None or proof is None -> snap is None and proof is None', 0):
        "proof is None exactly when snap is None: it is `None if snap is None else prove_stack(...)`, and "
        "prove_stack returns a Proof, Counterexample or Unproved on every path (_Closure.run, search.unproved), "
        "never None; so both conditions are `snap is None`",
}


@dataclass(frozen=True)
class Mutant:
    target: Target
    line: int
    start: int  # offsets into the source text
    end: int
    new: str
    label: str
    function: str = ""  # Class.method or function
    occurrence: int = 0  # earlier mutants of the same function with the same label

    def key(self) -> tuple[str, str, str, int]:
        return (self.target.path, self.function, self.label, self.occurrence)


_SWAP_CMP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
             ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
_SWAP_BIN = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult}


def _offsets(source: str) -> list[int]:
    starts, total = [], 0
    for line in source.splitlines(keepends=True):
        starts.append(total)
        total += len(line)
    return starts


def _segment(node, starts) -> tuple[int, int]:
    return starts[node.lineno - 1] + node.col_offset, starts[node.end_lineno - 1] + node.end_col_offset


def _variants(node) -> list[ast.AST]:
    """The mutated copies of one expression node."""
    out: list[ast.AST] = []
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in _SWAP_CMP:
                m = ast.Compare(left=node.left, ops=list(node.ops), comparators=node.comparators)
                m.ops[i] = _SWAP_CMP[type(op)]()
                out.append(m)
    elif isinstance(node, ast.BinOp) and type(node.op) in _SWAP_BIN:
        out.append(ast.BinOp(left=node.left, op=_SWAP_BIN[type(node.op)](), right=node.right))
    elif isinstance(node, ast.BoolOp):
        other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        out.append(ast.BoolOp(op=other, values=node.values))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        out.append(node.operand)
    elif isinstance(node, ast.Constant):
        if node.value is True or node.value is False:
            out.append(ast.Constant(not node.value))
        elif isinstance(node.value, int):
            out.append(ast.Constant(node.value + 1))
            if node.value == 1:
                out.append(ast.Constant(0))
    return out


def _statement_variant(node) -> bool:
    """A statement replaced by ``pass``: a raise, a bare call, an augmented assignment."""
    return isinstance(node, (ast.Raise, ast.AugAssign)) or (
        isinstance(node, ast.Expr) and isinstance(node.value, ast.Call))


def _chosen(tree, functions) -> list[tuple[str, ast.AST]]:
    """The function definitions to mutate, with their names (``Class.method`` for a method)."""
    found: list[tuple[str, ast.AST]] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not functions or node.name in functions:
                found.append((node.name, node))
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if not functions or node.name in functions or f"{node.name}.{item.name}" in functions:
                        found.append((f"{node.name}.{item.name}", item))
    return found


def _walk(node):
    """The nodes under ``node``, leaving out annotations, docstrings, f-strings and decorators."""
    body = getattr(node, "body", None)
    doc = None
    if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(
            getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str):
        doc = body[0]
    for field, value in ast.iter_fields(node):
        if field in ("annotation", "returns", "decorator_list", "type_comment"):
            continue
        for child in value if isinstance(value, list) else [value]:
            if not isinstance(child, ast.AST) or child is doc or isinstance(child, ast.JoinedStr):
                continue
            yield child
            yield from _walk(child)


def mutants_of(target: Target) -> list[Mutant]:
    source = (ROOT / target.path).read_text()
    tree = ast.parse(source)
    starts = _offsets(source)
    out: list[Mutant] = []
    for name, fn in _chosen(tree, target.functions):
        first = len(out)
        for node in _walk(fn):
            if not hasattr(node, "lineno"):
                continue
            if isinstance(node, ast.stmt):
                if _statement_variant(node):
                    a, b = _segment(node, starts)
                    out.append(Mutant(target, node.lineno, a, b, "pass", f"{source[a:b].splitlines()[0]} -> pass"))
                continue
            for mutated in _variants(node):
                a, b = _segment(node, starts)
                text = ast.unparse(mutated)
                if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
                    new = text
                else:
                    new = f"({text})"
                old = " ".join(source[a:b].split())
                out.append(Mutant(target, node.lineno, a, b, new, f"{old} -> {text}"))
        seen: dict[str, int] = {}
        for i in range(first, len(out)):
            m = out[i]
            out[i] = dataclasses.replace(m, function=name, occurrence=seen.get(m.label, 0))
            seen[m.label] = seen.get(m.label, 0) + 1
    return out


def _copy(dest: Path) -> None:
    """A private copy of the repository's code and tests, importable as ``bilinear``."""
    ignore = shutil.ignore_patterns(".git", "__pycache__", "*.egg-info", ".mypy_cache", ".ruff_cache",
                                    ".hypothesis", "build", "dist", "runs", "*.pt")
    for part in ("bilinear", *ROOMS, "tests", "examples", "docs", "pyproject.toml", "conftest.py"):
        src = ROOT / part
        if src.is_dir():
            shutil.copytree(src, dest / part, ignore=ignore)
        elif src.exists():
            shutil.copy2(src, dest / part)
    for room in ROOMS:  # the package-dir mapping of pyproject.toml, as links
        (dest / "bilinear" / room).symlink_to(dest / room, target_is_directory=True)


def run(m: Mutant, copy: Path, timeout: float) -> str:
    path = copy / m.target.path
    source = (ROOT / m.target.path).read_text()
    try:
        path.write_text(source[:m.start] + m.new + source[m.end:])
        cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "no:randomly",
               *m.target.test_ids]
        env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
        try:
            done = subprocess.run(cmd, cwd=copy, capture_output=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return "killed (timeout)"
        if done.returncode == 0:
            return "survived"
        if done.returncode in (1,):
            return "killed"
        return f"killed (pytest exit {done.returncode})"
    finally:
        path.write_text(source)


def _rebind(module, old: dict) -> None:
    """After the mutated source ran in ``module``'s namespace: every other loaded ``bilinear``
    module that imported one of its old objects by name gets the new one."""
    changed = {id(v): module.__dict__[k] for k, v in old.items()
               if k in module.__dict__ and module.__dict__[k] is not v and not k.startswith("__")}
    for other in list(sys.modules.values()):
        if other is module or not getattr(other, "__name__", "").startswith("bilinear"):
            continue
        for k, v in list(vars(other).items()):
            if id(v) in changed:
                setattr(other, k, changed[id(v)])


def _child(m: Mutant, module, source: str) -> None:
    """In a forked child: run the mutated source in the module's own namespace, then the target's
    tests (their modules are imported here, after the mutation); never returns."""
    import pytest

    code = 3
    try:
        old = dict(module.__dict__)
        exec(compile(source[:m.start] + m.new + source[m.end:], str(Path.cwd() / m.target.path), "exec"),
             module.__dict__)
        _rebind(module, old)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        code = int(pytest.main(["-q", "-x", "-p", "no:cacheprovider", "-p", "no:randomly", *m.target.test_ids]))
    except BaseException:  # a mutant that breaks the module's own import is killed
        code = 2
    finally:
        os._exit(code)


def _run_forked(mutants: list[Mutant], copy: Path, jobs: int, timeout: float, report) -> None:
    """``--fork``: import the code once, in a private copy, then fork a child per mutant (``jobs``
    at a time, from this one thread: no lock is held by another thread when a child forks)."""
    import importlib

    import pytest  # noqa: F401

    os.chdir(copy)
    sys.path.insert(0, str(copy))
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    modules = {t: importlib.import_module("bilinear." + t.removesuffix(".py").replace("/", "."))
               for t in {m.target.path for m in mutants}}
    sources = {t: (copy / t).read_text() for t in modules}
    pending = list(mutants)
    running: dict[int, tuple[Mutant, float]] = {}
    while pending or running:
        while pending and len(running) < max(1, jobs):
            m = pending.pop(0)
            pid = os.fork()
            if pid == 0:
                _child(m, modules[m.target.path], sources[m.target.path])
            running[pid] = (m, time.perf_counter())
        time.sleep(0.05)
        for pid, (m, t0) in list(running.items()):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                code = os.waitstatus_to_exitcode(status)
                outcome = "survived" if code == 0 else "killed" if code == 1 else f"killed (pytest exit {code})"
            elif time.perf_counter() - t0 > timeout:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                outcome = "killed (timeout)"
            else:
                continue
            del running[pid]
            report(m, outcome)


def _terminate(signum, frame):  # SIGTERM: leave through ``finally``, which removes the copies
    raise KeyboardInterrupt


def main(argv=None) -> int:
    import signal

    signal.signal(signal.SIGTERM, _terminate)
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-k", default="", help="only targets whose name contains this text (several: comma-separated)")
    p.add_argument("--line", type=int, nargs=2, metavar=("FROM", "TO"), help="only mutants on these lines")
    p.add_argument("--jobs", type=int, default=2, help="copies run side by side (default 2)")
    p.add_argument("--timeout", type=float, default=120.0,
                   help="seconds per mutant's test run (a mutant that loops forever is killed by it)")
    p.add_argument("--again", metavar="LOG", help="only the mutants a previous run's output LOG reports as "
                   "survived (matched by file and text, so that edits which move lines do not lose them)")
    p.add_argument("--near", type=int, default=12, metavar="LINES",
                   help="with --again: how far a mutant's line may have moved since the log (default 12)")
    p.add_argument("--list", action="store_true", help="list the mutants and exit")
    p.add_argument("--fork", action="store_true", help="import the code once and fork a child per mutant "
                   "(about five times faster on a loaded machine; the children share the parent's imports)")
    args = p.parse_args(argv)
    wanted = [k.strip().lower() for k in args.k.split(",")]
    targets = [t for t in TARGETS if any(k in t.name.lower() for k in wanted)]
    mutants = [m for t in targets for m in mutants_of(t)]
    if args.line:
        mutants = [m for m in mutants if args.line[0] <= m.line <= args.line[1]]
    if args.again:
        # matched by file, text, function (where the log names it) and a line within --near of the
        # logged one: edits that move lines do not lose a mutant, and "1 -> 2" elsewhere is not taken
        survived: dict[tuple[str, str], list[tuple[int, str]]] = {}
        for line in Path(args.again).read_text().splitlines():
            if " survived " in line or line.startswith("  survived: "):
                where, _, label = line.split(" survived", 1)[1].lstrip(": ").partition(": ")
                text, _, function = label.split("  (equivalent")[0].partition("  [")
                path, _, at = where.partition(":")
                survived.setdefault((path, text), []).append((int(at), function.rstrip("]")))
        mutants = [m for m in mutants if any(abs(m.line - at) <= args.near and fn in ("", m.function)
                                             for at, fn in survived.get((m.target.path, m.label), ()))]
    if args.list:
        for m in mutants:
            print(f"{m.target.path}:{m.line}: {m.label}  [{m.function} #{m.occurrence}]")
        print(f"{len(mutants)} mutants")
        return 0
    # every copy is checked first: the unmutated tests must pass there, else nothing is measured
    work = Path(tempfile.mkdtemp(prefix="bilinear-mutate-"))
    copies = []
    try:
        for i in range(1 if args.fork else max(1, args.jobs)):
            copies.append(work / f"copy{i}")
            _copy(copies[-1])
        tests = sorted({t for m in mutants for t in m.target.test_ids})
        base = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests],
                              cwd=copies[0], capture_output=True, text=True,
                              env={**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(copies[0])})
        if base.returncode != 0:
            print("the unmutated tests fail in the copy; nothing measured:\n" + base.stdout[-3000:])
            return 1
        free = list(copies)
        lock = threading.Lock()
        results: list[tuple[Mutant, str]] = []
        t0 = time.perf_counter()

        def one(m):
            with lock:
                copy = free.pop()
            try:
                outcome = run(m, copy, args.timeout)
            finally:
                with lock:
                    free.append(copy)
            with lock:
                report(m, outcome)

        def report(m, outcome):
            results.append((m, outcome))
            eq = EQUIVALENT.get(m.key())
            note = f"  (equivalent: {eq})" if eq and outcome == "survived" else ""
            print(f"[{len(results)}/{len(mutants)} {time.perf_counter() - t0:5.0f}s] {outcome:<9} "
                  f"{m.target.path}:{m.line}: {m.label}  [{m.function}]{note}", flush=True)

        if args.fork:
            _run_forked(mutants, copies[0], args.jobs, args.timeout, report)
        else:
            with ThreadPoolExecutor(max_workers=len(copies)) as pool:
                list(pool.map(one, mutants))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    survivors = [(m, o) for m, o in results if o == "survived" and m.key() not in EQUIVALENT]
    equivalent = [m for m, o in results if o == "survived" and m.key() in EQUIVALENT]
    scored = len(results) - len(equivalent)
    print(f"\nkilled {scored - len(survivors)} of {scored} mutants "
          f"({100 * (scored - len(survivors)) / max(scored, 1):.0f}%); equivalent (not scored): {len(equivalent)}")
    for m, _ in sorted(survivors, key=lambda r: (r[0].target.path, r[0].line)):
        print(f"  survived: {m.target.path}:{m.line}: {m.label}  [{m.function}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
