"""`cronaca import` end to end, as an operator runs it: N record files on disk, 2 workers running, on PostgreSQL.

    .venv/bin/python -m benchmarks.cronaca_import --files 3000 [--workers 2]

The files: the same exports as `benchmarks.deployment_imports` (greedy-bot games of the three titles,
each file with seat names of its own), written to a temporary folder. A PostgreSQL schema of the run's
own (tables made as `cronaca db upgrade` makes them, dropped after), queue names of its own on the
shared Redis (deleted after), `--workers` `cronaca worker` processes (the Procfile's line) started and
left idle for a second; then `cronaca import FILES --wait 600 --out lines.jsonl` and the wall clock
from its start to its exit: saving each file, queuing them 20 a job, the workers judging them on the
same cores, waiting for every verdict and writing each file's line. Printed: seconds, files/s, the
lines' statuses, the `cronaca import` process's own CPU a file (its rusage). The deployment's judging alone (no saving on the same cores) is
`benchmarks.deployment_imports`.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from benchmarks.deployment_commands import REDIS_URL, ROOT, clean_env, fresh_store, procfile_command
from benchmarks.deployment_imports import delete_queues, exports, files, queues_env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    import redis

    tag = f"cronaca-bench-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as tmp, fresh_store("postgres", Path(tmp), "cli") as store:
        folder = Path(tmp) / "files"
        folder.mkdir()
        paths = []
        for k, document in enumerate(files(args.files, exports("bench"))):
            paths.append(folder / f"game-{k:05d}.json")
            paths[-1].write_text(json.dumps(document))
        env = clean_env(**store, **queues_env(tag), PGAPPNAME=tag)
        workers = [subprocess.Popen(["/bin/sh", "-c", f"exec {procfile_command('worker')}"], env=env, cwd=ROOT,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
                   for _ in range(args.workers)]
        try:
            time.sleep(1.0)
            out = Path(tmp) / "lines.jsonl"
            before = resource.getrusage(resource.RUSAGE_CHILDREN)  # the workers still run: only the import's is counted
            started = time.perf_counter()
            done = subprocess.run([str(ROOT / ".venv" / "bin" / "cronaca"), "import", *map(str, paths), "--wait", "600",
                                   "--out", str(out)], env=env, cwd=ROOT, capture_output=True, text=True, timeout=900,
                                  check=False)
            took = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        finally:
            for worker in workers:
                worker.terminate()
            for worker in workers:
                worker.wait(30)
            delete_queues(redis.Redis.from_url(REDIS_URL), tag)
        statuses: dict[str, int] = {}
        for line in out.read_text().splitlines():
            status = json.loads(line).get("status", "refused")
            statuses[status] = statuses.get(status, 0) + 1
        print(f"cronaca import of {args.files:,} files with {args.workers} workers: exit {done.returncode} in {took:.1f} s "
              f"({args.files / took:.1f} files/s end to end) {statuses}; the import process's own CPU "
              f"{1000 * (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) / args.files:.1f} ms a file")


if __name__ == "__main__":
    main()
