"""Dask's cost per shard (BENCHMARKS §4.12): 2·10⁴ balls of 2000 steps in one process, then
as 2 … 32 shards on a LocalCluster of two single-thread worker processes (best of 3 each),
checking that every merged summary is the one process's, byte for byte.

    python benches/dask_shards.py     # with ricochet and dask[distributed] installed
"""

import time

import distributed

import ricochet


def best(run, times=3):
    seconds = []
    for _ in range(times):
        start = time.perf_counter()
        result = run()
        seconds.append(time.perf_counter() - start)
    return min(seconds), result


def main():
    balls = ricochet.scenarios()["bouncing_balls"]
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with cluster, distributed.Client(cluster) as client:
        ricochet.run(balls, scenes=100, backend="cpu", client=client, shards=2)  # the workers warm
        one, whole = best(lambda: ricochet.run(balls, scenes=20000, backend="cpu", progress=False))
        print(f"one process, 2e4 balls: {one:.3f} s")
        for shards in [2, 4, 8, 16, 32]:
            seconds, spread = best(lambda: ricochet.run(balls, scenes=20000, backend="cpu", client=client, shards=shards))
            assert spread.summary.tobytes() == whole.summary.tobytes()
            print(f"dask {shards:2d} shards: {seconds:.3f} s")


if __name__ == "__main__":
    main()
