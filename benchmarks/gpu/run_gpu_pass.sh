#!/usr/bin/env bash
# The GPU pass (issue 33 item 4; benchmarks/gpu/README.md): this project's benchmark models on an NVIDIA GPU in
# float32 and tf_amp float16 (dynamic loss scale), the LSTM units (nativelstm2 / cudnnlstm / standardlstm on TF's
# fused GPU kernel), and raw TensorFlow on the same models. Bounded to ~8 minutes; results in $OUT.
#
#   benchmarks/gpu/run_gpu_pass.sh             # on the GPU machine, from the repository root
#   benchmarks/gpu/run_gpu_pass.sh --dry-run   # CPU, tiny sizes: checks the script without a GPU
#
# Environment: OUT (result folder, default /tmp/gpu-pass), GPU_PASS_BUDGET (seconds for all runs, default 420).
set -u
cd "$(dirname "$0")/../.." || exit 2
OUT=${OUT:-/tmp/gpu-pass}
mkdir -p "$OUT"
set -o pipefail
python3 benchmarks/gpu/gpu_pass.py --out "$OUT" --budget "${GPU_PASS_BUDGET:-420}" "$@" 2>&1 | tee "$OUT/run.log"
