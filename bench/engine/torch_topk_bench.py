#!/usr/bin/env python3
"""
torch_topk_bench.py
    Times torch.topk (k smallest, sorted) on the inputs of engine_bench.cu, for the comparison
    column of run_bench.sh.

The cases come from `engine_bench --list` (one per line: id input log2(n) k segments).  The keys
are rebuilt with the same generator as engine_bench.cu's generate_kernel (murmur3's finaliser of
the index and the run's seed, in int64 arithmetic masked to 32 bits), so both programs see the
same values; for the Zipf rows the float64 pow may round differently in the last bit.  Each case
is timed with CUDA events, median of the timed runs after warm-up, fresh data for every run.

    python3 torch_topk_bench.py CASES_FILE [--reps N] [--unsorted]

Prints one line per case: id, torch milliseconds.  --unsorted times torch.topk(sorted=False)
(the k smallest in no particular order), for engine_bench's --unsorted column.
"""
import statistics
import sys

import torch

MASK = 0xFFFFFFFF


def mix32(i, seed):
    x = (i * 0x9E3779B1 + ((seed * 0x85EBCA77) & MASK)) & MASK
    x = x ^ (x >> 16)
    x = (x * 0x85EBCA6B) & MASK
    x = x ^ (x >> 13)
    x = (x * 0xC2B2AE35) & MASK
    x = x ^ (x >> 16)
    return x


def generate(dist, n, seed):
    i = torch.arange(n, dtype=torch.int64, device="cuda")
    if dist in ("f32-uniform", "f32-128.6-128.7"):
        u = (mix32(i, seed) >> 8).to(torch.float32) * (1.0 / 16777216.0)
        del i
        if dist == "f32-uniform":
            return u
        return u * 0.1 + 128.6
    if dist == "i64-uniform":
        hi = mix32(2 * i, seed)
        lo = mix32(2 * i + 1, seed)
        del i
        return (hi << 32) | lo
    u = ((mix32(i, seed) >> 8) + 1).to(torch.float64) * (1.0 / 16777216.0)
    del i
    return torch.clamp(torch.floor(torch.pow(u, -10.0)), max=4.0e18).to(torch.int64)


def main():
    reps = 10
    warmups = 2
    args = sys.argv[1:]
    if "--reps" in args:
        reps = int(args[args.index("--reps") + 1])
    in_order = "--unsorted" not in args
    cases = [line.split() for line in open(args[0]) if line.strip()]
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    print("# torch %s on %s, sorted=%s" % (torch.__version__, torch.cuda.get_device_name(), in_order),
          flush=True)
    for case_id, dist, log_n, k, segments in cases:
        n = 1 << int(log_n)
        k = int(k)
        segments = int(segments)
        times = []
        for rep in range(warmups + reps):
            x = generate(dist, n, rep + 1)
            if segments > 1:
                x = x.view(segments, n // segments)
            torch.cuda.synchronize()
            start.record()
            values, indices = torch.topk(x, k, dim=-1, largest=False, sorted=in_order)
            stop.record()
            torch.cuda.synchronize()
            if rep >= warmups:
                times.append(start.elapsed_time(stop))
            del x, values, indices
        print("%s\t%.3f" % (case_id, statistics.median(times)), flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
