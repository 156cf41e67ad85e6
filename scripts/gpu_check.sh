#!/usr/bin/env bash
# The ONE prepared run for a GPU machine (issue 17, GPU side): ground truth for kernelscope on real hardware.
#
#   OUT=/some/folder bash scripts/gpu_check.sh        # from anywhere; the repository is this script's parent
#
# Steps, in order of priority (each bounded by `timeout`, logged, and the run goes on when one fails):
#   1. environment: nvidia-smi, nvcc, ncu, Python / torch / cupy / triton versions, kernelscope --version
#   2. build examples/kernels with examples/kernels/build.sh "$BUILD" (a program it did not produce is compiled
#      here with nvcc -O3 -arch=$ARCH -lineinfo) and run each program's own check (PASS/FAIL lines with
#      the cudaEvent median durations)
#   3. kernelscope ceilings -o examples/reports/h200/ceilings.toml (measured DRAM bandwidth and matrix rates)
#   4. every program under Nsight Compute, through `kernelscope profile --clock-control none` (which runs
#      ncu --set full --import-source yes --target-processes all --clock-control none -f -o ...; the first
#      program is the probe: ERR_NVGPUCTRPERM there skips every other ncu step), each launch once
#      (--warmup 0 --repeats 1 --cold-l2 0: ncu flushes the caches itself); plain ncu when kernelscope cannot
#      run; then each report exported with ncu --import R --csv --page details and --page raw
#   5. a (timeline, kernel report) pair of ONE PyTorch program, scripts/torch_block.py (a transformer block
#      forward, a few steps): `kernelscope profile --timeline` records its ncu report (the kernels of the NVTX
#      range "step", at most $TB_KERNELS launches) and, in a second run, its PyTorch profiler trace; then
#      `kernelscope timeline TRACE --kernels REPORT` joins them
#
# Everything lands under $OUT, laid out as the repository wants it: $OUT/examples/reports/h200/ (reports, CSV
# exports, the trace, ceilings.toml, each program's check output, diagnoses as JSON), $OUT/logs/ (one log per
# step), $OUT/gpu_check.log (what ran, its exit status and time) and $OUT/steps.tsv. Binaries are built outside
# $OUT. Steps stop starting after DEADLINE_S seconds and none runs past DEADLINE_S + 60.
#
# Environment: OUT (default ./gpu-check-out), PYTHON (tried first for kernelscope and for the PyTorch program; then
# python3, python3 with the repository's .venv site-packages, the .venv's Python: see below), NCU (default: ncu on
# PATH, else the newest /usr/local/cuda*/bin/ncu or /opt/nvidia/nsight-compute*/ncu), ARCH (sm_90), DEADLINE_S (390),
# TB_KERNELS (16), BUILD (a temporary folder).

set -u -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-$PWD/gpu-check-out}
DEST=$OUT/examples/reports/h200
LOGS=$OUT/logs
ARCH=${ARCH:-sm_90}
DEADLINE_S=${DEADLINE_S:-390}
TB_KERNELS=${TB_KERNELS:-16}
BUILD=${BUILD:-$(mktemp -d "${TMPDIR:-/tmp}/ks-build.XXXXXX")}
START=$(date +%s)
mkdir -p "$DEST" "$LOGS" "$BUILD"
LOG=$OUT/gpu_check.log
STEPS=$OUT/steps.tsv
: >"$LOG"
printf 'step\tstatus\tseconds\n' >"$STEPS"
cd "$ROOT" || exit 2

elapsed() { echo $(( $(date +%s) - START )); }
log() { printf '%s [%4ss] %s\n' "$(date -u +%H:%M:%S)" "$(elapsed)" "$*" | tee -a "$LOG"; }

# step NAME LIMIT_S COMMAND...: run COMMAND with its output in $LOGS/NAME.log, bounded by LIMIT_S and by the
# deadline; returns its status (124: timed out; 125: skipped, past the deadline).
step() {
  local name=$1 limit=$2 rc t0 left
  shift 2
  left=$(( DEADLINE_S + 60 - $(elapsed) ))
  if (( $(elapsed) >= DEADLINE_S || left < 10 )); then
    log "SKIP  $name (past the ${DEADLINE_S}s deadline)"
    printf '%s\tskipped\t0\n' "$name" >>"$STEPS"
    return 125
  fi
  (( limit > left )) && limit=$left
  log "START $name (limit ${limit}s): $*"
  t0=$(date +%s)
  timeout --kill-after=10 "$limit" "$@" >"$LOGS/$name.log" 2>&1
  rc=$?
  log "END   $name: exit $rc after $(( $(date +%s) - t0 ))s$( ((rc == 124)) && echo ' (timed out)')"
  printf '%s\t%s\t%s\n' "$name" "$rc" "$(( $(date +%s) - t0 ))" >>"$STEPS"
  return "$rc"
}

# ---------------------------------------------------------------------------------------------- 1. environment
NCU=${NCU:-$(command -v ncu || ls -d /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute*/ncu 2>/dev/null \
  | sort -V | tail -n 1)}
PYPATH=$ROOT/src
if [[ -n $NCU && -d $(dirname "$NCU")/extras/python ]]; then
  PYPATH=$PYPATH:$(dirname "$NCU")/extras/python  # NVIDIA's ncu_report module, to read the reports
fi
# kernelscope's Python: the first that runs it: $PYTHON, python3 (it has torch on the GPU machine), python3 with the
# site-packages of the repository's .venv (same Python version only), the .venv's own Python.
VENV_SITE=$(ls -d "$ROOT"/.venv/lib/python3*/site-packages 2>/dev/null | head -n 1)
CANDIDATES=()
[[ -n ${PYTHON:-} ]] && CANDIDATES+=("$PYTHON|")
CANDIDATES+=("python3|")
PY3_VERSION=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
[[ -n $VENV_SITE && $VENV_SITE == *"/python$PY3_VERSION/"* ]] && CANDIDATES+=("python3|:$VENV_SITE")
[[ -x $ROOT/.venv/bin/python ]] && CANDIDATES+=("$ROOT/.venv/bin/python|")
KS=()
for c in "${CANDIDATES[@]}"; do
  try=(env "PYTHONPATH=$PYPATH${c#*|}${PYTHONPATH:+:$PYTHONPATH}" "${c%%|*}" -m kernelscope)
  if timeout 120 "${try[@]}" --version >/dev/null 2>&1; then KS=("${try[@]}"); PY=${c%%|*}; break; fi
done
KS_OK=0
(( ${#KS[@]} )) && KS_OK=1
# the PyTorch program's Python: the first that imports torch
TB_PY=
for c in ${PYTHON:-} python3 "$ROOT/.venv/bin/python"; do
  if timeout 120 "$c" -c 'import torch' >/dev/null 2>&1; then TB_PY=$c; break; fi
done
PY=${PY:-${TB_PY:-python3}}
NCU_OPT=()
[[ -n $NCU ]] && NCU_OPT=(--ncu "$NCU")
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "ncu: ${NCU:-none}"; echo "python: $PY"
  timeout 30 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  timeout 30 nvcc --version | tail -n 2
  [[ -n $NCU ]] && timeout 30 "$NCU" --version | tail -n 1
  timeout 120 "${TB_PY:-$PY}" -c 'import sys; print("python", sys.executable, sys.version.split()[0])
for m in ("torch", "cupy", "triton", "ncu_report"):
    try:
        mod = __import__(m); print(m, getattr(mod, "__version__", "?"))
    except Exception as exc: print(m, "not importable:", type(exc).__name__)
import torch; print("torch.cuda", torch.version.cuda, torch.cuda.is_available() and torch.cuda.get_device_name())'
  (( KS_OK )) && echo "kernelscope: ${KS[*]}" && timeout 60 "${KS[@]}" --version
  echo "PyTorch program's python: ${TB_PY:-none}"
} >"$OUT/env.txt" 2>&1
log "environment in env.txt; ncu=${NCU:-none}; kernelscope runs: $KS_OK (${KS[*]:-}); torch python: ${TB_PY:-none}"

# ---------------------------------------------------------------------------------------------- 2. build, checks
if [[ -f examples/kernels/build.sh ]]; then
  step build 240 env ARCH="$ARCH" bash examples/kernels/build.sh "$BUILD"
fi
declare -A BIN=()
PROGRAMS=()
for src in examples/kernels/*.cu; do
  grep -q 'int main' "$src" || continue
  name=$(basename "$src" .cu)
  PROGRAMS+=("$name")
  for dir in "$BUILD" examples/kernels/build examples/kernels/bin examples/kernels; do
    [[ -x $dir/$name && ! -d $dir/$name ]] && { BIN[$name]=$dir/$name; break; }
  done
done
for name in "${PROGRAMS[@]}"; do
  [[ -n ${BIN[$name]:-} ]] && continue
  step "nvcc_$name" 240 nvcc -O3 -arch="$ARCH" -lineinfo -o "$BUILD/$name" "examples/kernels/$name.cu" &
done
wait
for name in "${PROGRAMS[@]}"; do
  [[ -z ${BIN[$name]:-} && -x $BUILD/$name ]] && BIN[$name]=$BUILD/$name
  if [[ -z ${BIN[$name]:-} ]]; then log "NO BINARY for $name"; continue; fi
  step "check_$name" 90 "${BIN[$name]}"
  cp "$LOGS/check_$name.log" "$DEST/$name.check.txt" 2>/dev/null
done

# ---------------------------------------------------------------------------------------------- 3. ceilings
if (( KS_OK )); then
  step ceilings 180 "${KS[@]}" ceilings -o "$DEST/ceilings.toml"
  cp "$LOGS/ceilings.log" "$DEST/ceilings.txt" 2>/dev/null
fi

# ---------------------------------------------------------------------------------------------- 4. ncu per program
COUNTERS=unknown
export_report() {  # export_report NAME: the CSV pages of $DEST/NAME.ncu-rep
  local rep=$DEST/$1.ncu-rep page
  [[ -s $rep && -n $NCU ]] || return 0
  for page in details raw; do
    step "csv_${page}_$1" 90 bash -c '"$0" --import "$1" --csv --page "$2" >"$3"' \
      "$NCU" "$rep" "$page" "$DEST/$1.$page.csv"
  done
}
profile_program() {  # profile_program NAME COMMAND...: $DEST/NAME.ncu-rep, by kernelscope profile, else plain ncu
  local name=$1
  shift
  [[ $COUNTERS == denied ]] && { log "SKIP  ncu of $name (counters not readable)"; return 0; }
  if (( KS_OK )); then
    step "profile_$name" 150 "${KS[@]}" profile "${NCU_OPT[@]}" --clock-control none -o "$DEST/$name" \
      --format json --diagnosis "$DEST/$name.diagnosis.json" -- "$@"
  fi
  if grep -q ERR_NVGPUCTRPERM "$LOGS/profile_$name.log" 2>/dev/null; then
    COUNTERS=denied
    log "ERR_NVGPUCTRPERM: ncu cannot read the performance counters here; every other ncu step is skipped"
    return 0
  fi
  if [[ ! -s $DEST/$name.ncu-rep && -n $NCU ]]; then
    step "ncu_$name" 150 "$NCU" --set full --import-source yes --clock-control none --target-processes all \
      -f -o "$DEST/$name" "$@"
    grep -q ERR_NVGPUCTRPERM "$LOGS/ncu_$name.log" 2>/dev/null && COUNTERS=denied
  fi
  [[ -s $DEST/$name.ncu-rep ]] && COUNTERS=readable
  export_report "$name"
}
ORDER=()
for first in vector_add transpose; do  # the quickest program first: it is the probe
  [[ -n ${BIN[$first]:-} ]] && { ORDER+=("$first"); break; }
done
for name in "${PROGRAMS[@]}"; do [[ " ${ORDER[*]} " == *" $name "* ]] || ORDER+=("$name"); done
if [[ -z $NCU ]]; then
  log "no ncu on this machine: no Nsight Compute step"
else
  for name in "${ORDER[@]}"; do
    [[ -n ${BIN[$name]:-} ]] || continue
    args=()
    grep -q with_timing "examples/kernels/$name.cu" && args=(--warmup 0 --repeats 1 --cold-l2 0)
    profile_program "$name" "${BIN[$name]}" "${args[@]}"
  done
fi

# ---------------------------------------------------------------------------------------------- 5. the PyTorch pair
[[ -z $TB_PY ]] && log "no Python here imports torch: no PyTorch program, no (timeline, kernel report) pair"
TB=("${TB_PY:-$PY}" scripts/torch_block.py --steps 3 --warmup 1)
TB_NCU=(-c "$TB_KERNELS" --ncu-arg=--nvtx --ncu-arg=--nvtx-include --ncu-arg=step/)
if (( KS_OK )) && [[ -n $NCU && -n $TB_PY && $COUNTERS != denied ]]; then
  step torch_block_profile 240 "${KS[@]}" profile "${NCU_OPT[@]}" --clock-control none --timeline "${TB_NCU[@]}" \
    -o "$DEST/torch_block" --format json --diagnosis "$DEST/torch_block.diagnosis.json" -- "${TB[@]}"
fi
if [[ ! -s $DEST/torch_block.ncu-rep && -n $NCU && -n $TB_PY && $COUNTERS != denied ]]; then
  step torch_block_ncu 240 "$NCU" --set full --import-source yes --clock-control none --target-processes all \
    -c "$TB_KERNELS" --nvtx --nvtx-include step/ -f -o "$DEST/torch_block" "${TB[@]}"
fi
if [[ ! -s $DEST/torch_block.trace.json && -n $TB_PY ]]; then  # the trace alone, recorded by the program itself
  step torch_block_trace 120 "${TB[@]}" --trace "$DEST/torch_block.trace.json"
fi
export_report torch_block
if (( KS_OK )) && [[ -s $DEST/torch_block.trace.json && -s $DEST/torch_block.ncu-rep ]]; then
  step timeline_join 90 "${KS[@]}" timeline "$DEST/torch_block.trace.json" --kernels "$DEST/torch_block.ncu-rep" \
    -o "$DEST/torch_block.timeline.txt"
fi

# ---------------------------------------------------------------------------------------------- summary
log "counters: $COUNTERS; files in examples/reports/h200:"
(cd "$DEST" && ls -l | tail -n +2) | tee -a "$LOG"
log "steps that did not exit 0:"
awk -F'\t' 'NR > 1 && $2 != "0"' "$STEPS" | tee -a "$LOG"
log "done in $(elapsed)s"
exit 0
