#!/usr/bin/env bash
# One prepared call on a lent GPU machine (CUDA image with torch, nothing reachable outside):
#
#   bash benchmarks/gpu_session.sh OUT_DIR [SWEEP_SECONDS] [PARTS, default 123]
#
# 1. benchmarks/bench_gpu.py: parallel against sequential scan, bilinear against cuDNN's LSTM, the
#    paper's models at hidden 256 (cost of a 20,000-step run), the 2025 families;
# 2. benchmarks/bench_train.py --train-only on the machine's idle CPU cores (the one- and
#    two-thread training-step rows, which a shared development machine cannot measure), and
#    --eval-loop on one idle core (the d = 64 and 256 evaluation as a share of sgemm, its loop by
#    Python and by TorchScript);
# 3. a slice of the full protocol (`reproduce --full`'s grid: --preset paper, 20,000 steps at most,
#    early stopping on validation words, 500 test words) on the GPU: parity, cyclic:5 and
#    dihedral:3 against the five models of the reduced table at learning rate 1e-3, seed 0, all
#    fifteen runs at once (one worker process each), stopped after SWEEP_SECONDS (default 210);
#    every finished run's result is summarised.
# python-flint travels as a wheel in .whl/ (git-ignored; see docs/training.md, "On a GPU"); the
# package is put on PYTHONPATH without pip (its four rooms linked under one `bilinear` folder).
set -u
OUT_DIR=${1:?usage: gpu_session.sh OUT_DIR [SWEEP_SECONDS]}
SWEEP_SECONDS=${2:-210}
PARTS=${3:-123}  # which of the three parts to run
# the slice's tasks and worker processes (docs/training-results.md's slice: these three with 15 workers, then
# SLICE_FAMILIES='"cyclic:3", "random:states=5,symbols=2"' SLICE_WORKERS=10 with 300 s)
SLICE_FAMILIES=${SLICE_FAMILIES:-'"parity", "cyclic:5", "dihedral:3"'}
SLICE_WORKERS=${SLICE_WORKERS:-15}
# the slice's learning rates and seeds (TOML lists; docs/training-results.md's first slice: 1e-3 and 0)
SLICE_LRS=${SLICE_LRS:-1e-3}
SLICE_SEEDS=${SLICE_SEEDS:-0}
SLICE_MODELS=${SLICE_MODELS:-'"full", "block:2", "rotation2d", "diagonal", "lstm"'}
mkdir -p "$OUT_DIR"
export PYTHONUNBUFFERED=1 MPLBACKEND=Agg
if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
        && export PYTHONPATH=/tmp/site
fi
rm -rf /tmp/pkg && mkdir -p /tmp/pkg && cp -r bilinear /tmp/pkg/bilinear
for room in automata constructions learned analysis; do ln -s "$PWD/$room" "/tmp/pkg/bilinear/$room"; done
export PYTHONPATH=/tmp/pkg${PYTHONPATH:+:$PYTHONPATH}
# shellcheck disable=SC2329
bil() { python3 -c 'import sys; from bilinear.cli import main; sys.exit(main())' "$@"; }

nvidia-smi -L 2>&1 | tee "$OUT_DIR/device.txt"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())' 2>&1 | tee -a "$OUT_DIR/device.txt"

if [[ $PARTS == *1* ]]; then
echo "== 1. bench_gpu"
timeout 200 python3 benchmarks/bench_gpu.py --out "$OUT_DIR/bench_gpu.json" 2>&1 | tee "$OUT_DIR/bench_gpu.txt"

fi
if [[ $PARTS == *2* ]]; then
echo "== 2. bench_train --train-only on the idle CPUs"
timeout 120 env OMP_NUM_THREADS=2 MKL_NUM_THREADS=2 python3 benchmarks/bench_train.py --train-only 2>&1 \
    | tee "$OUT_DIR/bench_train_cpu.txt"
echo "== 2b. bench_train --eval-loop on one idle CPU (the evaluation against sgemm)"
timeout 120 env OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 python3 benchmarks/bench_train.py --eval-loop 2>&1 \
    | tee "$OUT_DIR/bench_eval_cpu.txt"

fi
if [[ $PARTS == *3* ]]; then
echo "== 3. full-protocol slice on the GPU (${SWEEP_SECONDS} s)"
rm -rf /tmp/slice
cat > /tmp/slice.toml <<EOF
families = [$SLICE_FAMILIES]
models = [$SLICE_MODELS]
lrs = [$SLICE_LRS]
seeds = [$SLICE_SEEDS]
workers = $SLICE_WORKERS

[train]
hidden = 256
embed = 256
angles = true
steps = 20000
eval_every = 100
patience = 5
test_words = 500
device = "cuda"
EOF
# from /tmp: `python3 -c` puts the working folder first on sys.path, where the repository's own
# `bilinear` folder (the floor alone, without its rooms) would shadow /tmp/pkg
(cd /tmp && timeout "$SWEEP_SECONDS" env OMP_NUM_THREADS=1 python3 -c 'import sys; from bilinear.cli import main; sys.exit(main())' \
    sweep /tmp/slice.toml --out /tmp/slice --quiet > "$OUT_DIR/slice.log" 2>&1; echo "sweep exit $?")
python3 - "$OUT_DIR" <<'EOF' 2>&1 | tee "$OUT_DIR/slice.md"
import json, sys
from pathlib import Path
rows = []
for cfg in sorted(Path("/tmp/slice").rglob("config.json")):
    run = cfg.parent
    c = json.loads(cfg.read_text())
    res = run / "result.json"
    if res.exists():
        r = json.loads(res.read_text())
        rows.append((c["spec"], c["model"], c.get("lr"), c.get("seed"), "done", r["steps"], r["accuracy_at_length"],
                     r["accuracy_mean_over_positions"], r["val_accuracy"], r["train_seconds"], r["params"]))
    else:
        last = {}
        m = run / "metrics.jsonl"
        if m.exists():
            lines = [x for x in m.read_text().splitlines() if x.strip()]
            last = json.loads(lines[-1]) if lines else {}
        rows.append((c["spec"], c["model"], c.get("lr"), c.get("seed"), "cut", last.get("step", 0), None, None, last.get("val_accuracy"), None, None))
print("| task | model | lr | seed | status | steps | acc at 500 | mean over positions | val acc | train s | params |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    f = lambda v: "-" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))
    print("| " + " | ".join(f(v) for v in r) + " |")
json.dump(rows, open(Path(sys.argv[1]) / "slice.json", "w"))
EOF
tail -5 "$OUT_DIR/slice.log"
fi
