#!/usr/bin/env bash
# Both allreduce tables in one command, on one host with NP GPUs (one rank per GPU): the
# gpuarray example (host-staged through Open MPI; then its per-stage profile, one line per
# size) and NCCL through PyTorch, same sizes; then
# the least-squares example on 1 and NP ranks (its speedup). Run from the repository root
# with the release examples built (cargo build --release --features mpi --examples) or
# carried there:
#
#   NP=2 benches/peers/dist_allreduce.sh [BIN_DIR]      # BIN_DIR: target/release/examples
set -euo pipefail
NP=${NP:-2}
BIN=${1:-target/release/examples}
# --bind-to none: Open MPI binds each of two ranks to one core by default, and the staging
# threads of a rank then share it (src/dist/mod.rs, "Give each rank several cores").
MPIRUN=(mpirun --oversubscribe --allow-run-as-root --bind-to none -np)
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
echo "== gpuarray allreduce, $NP ranks"
"${MPIRUN[@]}" "$NP" "$BIN/dist_allreduce" "${@:2}"
echo "== gpuarray allreduce stage profile (GPUARRAY_DIST_PROFILE, rank 0): the last call of each size, ms per chunk"
# The profile goes to stderr, one line per call; keep the last line of each size.
GPUARRAY_DIST_PROFILE=1 "${MPIRUN[@]}" "$NP" "$BIN/dist_allreduce" "${@:2}" 2>&1 >/dev/null |
  awk '/^dist profile: allreduce/ { match($0, /bytes=[0-9]+/); k = substr($0, RSTART, RLENGTH);
       if (!(k in last)) order[++n] = k; last[k] = $0 }
       END { for (i = 1; i <= n; i++) print last[order[i]] }'
echo "== NCCL allreduce (PyTorch), $NP ranks"
"${MPIRUN[@]}" "$NP" python3 benches/peers/nccl_allreduce.py
echo "== least squares by gradient descent: 1 rank, then $NP"
"${MPIRUN[@]}" 1 "$BIN/dist_lstsq" ${LSTSQ_ARGS:-}
"${MPIRUN[@]}" "$NP" "$BIN/dist_lstsq" ${LSTSQ_ARGS:-}
