"""gunicorn's configuration (api/gunicorn_conf.py) puts every process's metrics in PROMETHEUS_MULTIPROC_DIR.

prometheus_client reads the variable when it is first imported: the configuration, imported by gunicorn's master
before it forks the workers, must set it before anything imports prometheus_client, or each worker keeps its
samples in its own memory and /metrics (read from the folder) shows none of them. Each case runs in a fresh
interpreter, as the master does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.service.conftest import ROOT

MASTER = """
import json, os
import api.gunicorn_conf as conf
from prometheus_client import CollectorRegistry, Counter, Gauge

folder = os.environ["PROMETHEUS_MULTIPROC_DIR"]
Counter("cronaca_probe", "a worker's sample", registry=CollectorRegistry()).inc()
Gauge("cronaca_probe_live", "a worker's live gauge", multiprocess_mode="livesum", registry=CollectorRegistry()).set(1)
written = sorted(os.listdir(folder))
conf.child_exit(None, type("Worker", (), {"pid": os.getpid()})())  # as gunicorn says when a worker is gone
after_exit = sorted(os.listdir(folder))
conf.on_exit(None)
print(json.dumps({"folder": folder, "written": written, "after_exit": after_exit, "pid": os.getpid(),
                  "kept": os.path.isdir(folder)}))
"""


def master(env: dict[str, str]) -> dict[str, object]:
    clean = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    done = subprocess.run([sys.executable, "-c", MASTER], cwd=ROOT, env={**clean, "PYTHONPATH": str(ROOT), **env},
                          capture_output=True, text=True, timeout=120, check=True)
    found: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def test_without_the_variable_the_master_makes_a_folder_every_sample_is_written_to() -> None:
    found = master({})
    pid = found["pid"]
    assert Path(str(found["folder"])).name.startswith("cronaca-metrics-")
    assert found["written"] == [f"counter_{pid}.db", f"gauge_livesum_{pid}.db"]  # not kept in the process's memory
    assert found["after_exit"] == [f"counter_{pid}.db"]  # a gone worker's live gauge no longer counts; its counts do
    assert found["kept"] is False  # the master's own folder goes with it


def test_a_folder_named_by_the_operator_is_made_used_and_left(tmp_path: Path) -> None:
    folder = tmp_path / "host metrics"
    found = master({"PROMETHEUS_MULTIPROC_DIR": str(folder)})
    assert found["folder"] == str(folder) and f"counter_{found['pid']}.db" in found["written"]
    assert found["kept"] is True and folder.is_dir()
