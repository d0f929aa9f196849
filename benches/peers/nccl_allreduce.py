#!/usr/bin/env python3
"""NCCL's allreduce bandwidth through PyTorch, the peer of examples/dist_allreduce.rs: f32
sums of 1 KB to 1 GB, one rank per GPU, the same columns (time per call on the slowest
rank, algbw = bytes / time, busbw = algbw * 2 (p - 1) / p).

Launch with torchrun or mpirun (Open MPI's variables are read when torchrun's are absent):

    torchrun --nproc_per_node=2 benches/peers/nccl_allreduce.py
    mpirun -np 2 python3 benches/peers/nccl_allreduce.py [--min 1024] [--max 1073741824]

benches/peers/dist_allreduce.sh runs this and the gpuarray example in one command.
"""
import argparse
import os
import time

import torch
import torch.distributed as dist


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--min", type=int, default=1 << 10)
    ap.add_argument("--max", type=int, default=1 << 30)
    args = ap.parse_args()
    env = os.environ
    if "RANK" not in env and "OMPI_COMM_WORLD_RANK" in env:
        env["RANK"] = env["OMPI_COMM_WORLD_RANK"]
        env["WORLD_SIZE"] = env["OMPI_COMM_WORLD_SIZE"]
        env["LOCAL_RANK"] = env["OMPI_COMM_WORLD_LOCAL_RANK"]
        env.setdefault("MASTER_ADDR", "127.0.0.1")
        env.setdefault("MASTER_PORT", "29517")
    local = int(env.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local % torch.cuda.device_count())
    dist.init_process_group("nccl")
    p, me = dist.get_world_size(), dist.get_rank()
    if me == 0:
        print(f"NCCL allreduce (sum of f32) over {p} rank(s), torch {torch.__version__}, "
              f"NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}, {torch.cuda.get_device_name()}")
        print("| bytes | time (us) | algbw (GB/s) | busbw (GB/s) |")
        print("|---:|---:|---:|---:|")
    nbytes = max(args.min, 4)
    while nbytes <= args.max:
        n = nbytes // 4
        x = torch.full((n,), 1.0 + me, device="cuda", dtype=torch.float32)
        reps = min(max((64 << 20) // nbytes, 2), 50)
        y = x.clone()
        dist.all_reduce(y)  # warm-up
        torch.cuda.synchronize()
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(reps):
            y = x.clone()  # out of place, as gpuarray's allreduce returns a new array
            dist.all_reduce(y)
        torch.cuda.synchronize()
        mine = torch.tensor([(time.perf_counter() - t0) / reps], device="cuda", dtype=torch.float64)
        dist.all_reduce(mine, op=dist.ReduceOp.MAX)
        t = mine.item()
        if me == 0:
            algbw = nbytes / t / 1e9
            busbw = algbw * 2 * (p - 1) / p
            print(f"| {nbytes} | {t * 1e6:.1f} | {algbw:.3f} | {busbw:.3f} |")
            print(f"RESULT nccl_allreduce ranks={p} bytes={nbytes} us={t * 1e6:.2f} algbw={algbw:.4f} busbw={busbw:.4f}")
        nbytes *= 4
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
