#!/usr/bin/env bash
# Both allreduce tables in one command, on one host with NP GPUs (one rank per GPU): the
# gpuarray example (host-staged through Open MPI) and NCCL through PyTorch, same sizes; then
# the least-squares example on 1 and NP ranks (its speedup). Run from the repository root
# with the release examples built (cargo build --release --features mpi --examples) or
# carried there:
#
#   NP=2 benches/peers/dist_allreduce.sh [BIN_DIR]      # BIN_DIR: target/release/examples
set -euo pipefail
NP=${NP:-2}
BIN=${1:-target/release/examples}
MPIRUN=(mpirun --oversubscribe --allow-run-as-root -np)
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
echo "== gpuarray allreduce, $NP ranks"
"${MPIRUN[@]}" "$NP" "$BIN/dist_allreduce" "${@:2}"
echo "== NCCL allreduce (PyTorch), $NP ranks"
"${MPIRUN[@]}" "$NP" python3 benches/peers/nccl_allreduce.py
echo "== least squares by gradient descent: 1 rank, then $NP"
"${MPIRUN[@]}" 1 "$BIN/dist_lstsq" ${LSTSQ_ARGS:-}
"${MPIRUN[@]}" "$NP" "$BIN/dist_lstsq" ${LSTSQ_ARGS:-}
