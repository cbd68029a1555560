#!/usr/bin/env bash
# The notebooks at KIT_SCALE=medium on a GPU machine with no network and no Jupyter (the kit's `--in-process`),
# in two calls because MiniLM's float32 checkpoint (91 MB) is larger than one call may carry.
#
#   bash benchmarks/medium_gpu/device.sh one SECONDS   # wheels, data, part 1 of MiniLM; benchmarks/gpu.py; then
#                                                      # starts notebook 02 (needs no MiniLM weights for its TLM runs)
#   bash benchmarks/medium_gpu/device.sh two SECONDS   # part 2 of MiniLM; notebooks 01, 03, 04 beside 02 until
#                                                      # SECONDS from the call's start, then packs what each wrote
#
# What it needs in the repository root (ignored folders): .whl/ (keras, keras-hub, namex, optree, platformdirs,
# rank-bm25 wheels for Python 3.12; not kagglehub: it needs kagglesdk, and keras-hub imports without it),
# .gpu/one/ (data.tar.xz of the kit's prepared offline sets,
# minilm_rest.tar, minilm.part1, wordnet_graded.SOURCE), then .gpu/two/minilm.part2. Each notebook writes its sweep's
# results.csv run by run into .gpu/out/NN, so a stop loses at most the run in flight and a later call resumes there.
# PY (default python3) and SKIP_INSTALL=1 let it be tried on a CPU machine first.
set -u
phase=${1:?one or two}
budget=${2:-500}
start=$(date +%s)
R=$PWD
PY=${PY:-python3}
OUT=${OUT:-$R/.gpu/out/returned}
mkdir -p "$OUT" .gpu/out
export PYTHONUNBUFFERED=1 PYTHONPATH=$R/.gpu/site:$R KIT_DATA_DIR=$R/.gpu/data KERAS_BACKEND=jax KIT_SCALE=medium
MINILM_SHA=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
left() { echo $(( budget - ($(date +%s) - start) )); }

start_notebook() {   # NN: run it in its own session so it outlives this call (until the machine goes back)
  local nb=$1
  mkdir -p .gpu/out/$nb
  # resume: the runs a session before this one finished (committed beside this script) are not run again, as long
  # as the medium sizes have not changed since (the sweep's fingerprint would then differ and it runs them anew)
  [ -f .gpu/out/$nb/results.csv ] || [ ! -f benchmarks/medium_gpu/${nb}_results.csv ] \
    || cp benchmarks/medium_gpu/${nb}_results.csv .gpu/out/$nb/results.csv
  echo "$(date +%T) starting notebook $nb"
  # four notebooks share the GPU: jax would take 75% of its memory each
  XLA_PYTHON_CLIENT_MEM_FRACTION=0.2 setsid nohup bash -c \
    "echo \$\$ > .gpu/out/$nb.pid; exec $PY -m kit.cli run $nb --in-process --out .gpu/out/$nb" \
    >> .gpu/out/$nb.log 2>&1 < /dev/null &
}
running() { kill -0 "$(cat .gpu/out/$1.pid 2>/dev/null)" 2>/dev/null; }

if [ "$phase" = one ]; then
  if [ "${SKIP_INSTALL:-0}" != 1 ]; then
    $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target .gpu/site .whl/*.whl \
      || exit 1
  fi
  mkdir -p .gpu/data
  tar -xJf .gpu/one/data.tar.xz -C .gpu/data || exit 1
  rm -rf .gpu/data/wordnet_graded && mkdir -p .gpu/data/wordnet_graded
  cp -r .gpu/data/wordnet_pairs/prepared .gpu/data/wordnet_graded/ && cp .gpu/one/wordnet_graded.SOURCE .gpu/data/wordnet_graded/SOURCE
  tar -xf .gpu/one/minilm_rest.tar -C .gpu/data || exit 1
  nvidia-smi -L 2>/dev/null; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null
  $PY -c "import jax, keras, keras_hub, kit, sys; print(sys.version.split()[0], 'jax', jax.__version__, jax.devices(), 'keras', keras.__version__, 'keras-hub', keras_hub.__version__)" || exit 1
  $PY -c "import torch; print('torch', torch.__version__, torch.cuda.is_available())"
  # the GPU benchmark first, alone on the machine, so its timings are not shared with a notebook
  mkdir -p "$OUT/bench"
  limit=$(( $(left) - 15 )); [ $limit -gt 30 ] || limit=30
  timeout $limit $PY benchmarks/gpu.py ${BENCH_ARGS:---backends jax,torch,plain --batches 128,384 \
    --repeats 3 --train-steps 20} --out-dir "$OUT/bench" 2>&1 | grep -v -i "warning" | tail -60
  echo "benchmark done at $(( $(date +%s) - start )) s"
  start_notebook 02
  sleep 5; tail -3 .gpu/out/02.log
  exit 0
fi

# phase two: on the machine phase one left warm (its .gpu/site, .gpu/data and .gpu/one/minilm.part1)
[ -d .gpu/site ] && [ -f .gpu/one/minilm.part1 ] || { echo "run phase one first, on this machine"; exit 1; }
cat .gpu/one/minilm.part1 .gpu/two/minilm.part2 > .gpu/data/minilm-l6/prepared/model.safetensors
echo "$MINILM_SHA  .gpu/data/minilm-l6/prepared/model.safetensors" | sha256sum -c || exit 1
for nb in 01 03 04; do start_notebook $nb; done
running 02 || start_notebook 02
while [ "$(left)" -gt 45 ]; do
  sleep 20
  alive=0
  for nb in 01 02 03 04; do running $nb && alive=$((alive + 1)); done
  echo "$(date +%T) $((  $(date +%s) - start )) s: $alive notebooks running; finished runs:" \
    $(for nb in 01 02 03 04; do echo "$nb=$(($(cat .gpu/out/$nb/results.csv 2>/dev/null | wc -l)))"; done)
  [ $alive -eq 0 ] && break
done
stop() { for nb in 01 02 03 04; do pid=$(cat .gpu/out/$nb.pid 2>/dev/null) && kill -$1 -- -"$pid" 2>/dev/null; done; }
stop TERM; sleep 8; stop KILL   # kit run stops on TERM as on Ctrl-C and saves the notebook executed so far
nvidia-smi --query-gpu=name,memory.used --format=csv,noheader 2>/dev/null
for nb in 01 02 03 04; do
  echo "== $nb"; tail -4 .gpu/out/$nb.log
  # results, tables, figures, curves, the executed notebook and the log; not saved models or predictions
  tar -czf "$OUT/nb$nb.tar.gz" --exclude='*.keras' --exclude='*.h5' --exclude='*.npy' --exclude='*.npz' \
    --exclude='*.weights.*' .gpu/out/$nb .gpu/out/$nb.log 2>/dev/null
done
ls -la "$OUT"
