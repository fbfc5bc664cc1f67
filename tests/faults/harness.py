"""The deployment the fault suite breaks: the Procfile's process types started for real.

Each process is one line of the repository's Procfile (parsed with honcho's own parser,
`honcho.environ.parse_procfile`, so the suite runs exactly what `honcho start` runs), run by
`sh -c` with `PORT` and the test's environment, in a process group of its own (as on a host of
its own): `stop()` ends only the groups it started, TERM first, KILL after a bounded wait.

Hosts. With `network="netns"` (or `"auto"` when we are root and iproute2's `ip` is here) every
process runs in a network namespace of the suite's own, joined to a bridge of its own on a
private /24 (10.213.x.0/24): the API is reached at the host's own address, and PostgreSQL and
Redis through the bridge's address, where one `socat` per server relays to the server's loopback
port (the suite's servers listen on 127.0.0.1 only, and its pg_hba trusts that alone). So every
request, query and job crosses a network link, and `pg_terminate_backend` cuts a connection
the process holds across it. Otherwise (`"loopback"`) processes listen on 127.0.0.1 free ports.
Namespaces, the bridge and the relays are removed at `stop()` whatever happened; leftovers of a
test process that died (names carry its pid) are swept at the next start.

The schema is made by `cronaca db upgrade` before any process starts (processes never create
tables); until that command exists, by building the records application once with
CREATE_TABLE=true.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import ipaddress
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from honcho.environ import parse_procfile

from tests.service.conftest import ROOT, free_port, subprocess_env
from workers.metrics import process_alive

VENV_BIN = Path(sys.executable).parent
PREFIX = "cronaca-f"  # namespaces: cronaca-f-<pid>-<n>-<k>; links: crb/crv + pid in hex (kernel names <= 15 chars)
SUBNETS = ipaddress.ip_network("10.213.0.0/16")
LOCK = Path(tempfile.gettempdir()) / "cronaca-faults-netns.lock"
STOP_GRACE = 8.0  # seconds a process group has between TERM and KILL (gunicorn's graceful_timeout is 10)


def procfile(path: Path = ROOT / "Procfile") -> dict[str, str]:
    """The process types and their command lines, as honcho reads them."""
    return dict(parse_procfile(path.read_text()).processes)


def netns_possible() -> bool:
    """Root, iproute2 and socat: what separate hosts in namespaces need."""
    return os.geteuid() == 0 and shutil.which("ip") is not None and shutil.which("socat") is not None


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=20, check=check)


def sweep_stale() -> list[str]:
    """Remove namespaces and bridges a dead test process of this suite left behind (its pid is in their name)."""
    removed = []
    for line in _ip("netns", "list", check=False).stdout.splitlines():
        name = line.split()[0] if line.split() else ""
        found = re.fullmatch(rf"{PREFIX}-(\d+)-\d+-\d+", name)
        if found and not process_alive(int(found.group(1))):
            for pid in _ip("netns", "pids", name, check=False).stdout.split():
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), signal.SIGKILL)
            _ip("netns", "del", name, check=False)
            removed.append(name)
    for line in _ip("-o", "link", "show", "type", "bridge", check=False).stdout.splitlines():
        found = re.search(r"^\d+: (crb([0-9a-f]{6})[0-9a-f]):", line)
        if found and not process_alive(int(found.group(2), 16)):
            _ip("link", "del", found.group(1), check=False)
            removed.append(found.group(1))
    return removed


@dataclass
class Host:
    """A network namespace of the suite's own, one leg on the deployment's bridge."""

    namespace: str
    address: str


class Network:
    """A bridge on a private /24, namespaces attached to it, and relays to the loopback servers."""

    _count = 0

    def __init__(self, folder: Path) -> None:
        Network._count += 1
        self.tag = f"{os.getpid():06x}{Network._count % 16:x}"
        self.serial = f"{os.getpid()}-{Network._count}"
        self.bridge = f"crb{self.tag}"
        self.folder = folder
        self.hosts: list[Host] = []
        self.relays: list[subprocess.Popen[bytes]] = []
        self.subnet: ipaddress.IPv4Network | None = None
        self.gateway = ""
        with LOCK.open("a") as lock:  # two deployments at once (pytest -n 2) never pick the same subnet
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                sweep_stale()
                used = _ip("-4", "-o", "addr", "show", check=False).stdout
                start = os.getpid() % 200
                for k in range(256):
                    candidate = list(SUBNETS.subnets(new_prefix=24))[(start + k) % 256]
                    if f" {candidate.network_address + 1}/" not in used:
                        self.subnet = candidate
                        break
                if self.subnet is None:
                    raise RuntimeError(f"no free /24 left in {SUBNETS} for the suite's bridge")
                self.gateway = str(self.subnet.network_address + 1)
                _ip("link", "add", self.bridge, "type", "bridge")
                _ip("addr", "add", f"{self.gateway}/24", "dev", self.bridge)
                _ip("link", "set", self.bridge, "up")
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def add_host(self) -> Host:
        """A new namespace with its own address on the bridge (and its own loopback)."""
        assert self.subnet is not None
        k = len(self.hosts)
        namespace = f"{PREFIX}-{self.serial}-{k}"
        outside, inside = f"crv{self.tag}{k:x}", f"crp{self.tag}{k:x}"
        address = str(self.subnet.network_address + 10 + k)
        _ip("netns", "add", namespace)
        self.hosts.append(Host(namespace, address))  # removed at close() even if a step below fails
        _ip("link", "add", outside, "type", "veth", "peer", "name", inside)
        _ip("link", "set", inside, "netns", namespace)
        _ip("link", "set", outside, "master", self.bridge)
        _ip("link", "set", outside, "up")
        _ip("-n", namespace, "addr", "add", f"{address}/24", "dev", inside)
        _ip("-n", namespace, "link", "set", inside, "up")
        _ip("-n", namespace, "link", "set", "lo", "up")
        return self.hosts[-1]

    def relay(self, port: int) -> str:
        """`gateway:port` on the bridge, relayed to 127.0.0.1:port (a server of the suite's own)."""
        log = (self.folder / f"relay-{port}.log").open("wb")
        self.relays.append(subprocess.Popen(
            ["socat", f"TCP-LISTEN:{port},bind={self.gateway},fork,reuseaddr", f"TCP:127.0.0.1:{port}"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection((self.gateway, port), timeout=0.5):
                return self.gateway
            time.sleep(0.05)
        raise TimeoutError(f"the relay to 127.0.0.1:{port} on {self.gateway} did not listen within 10 s")

    def close(self) -> None:
        for relay in self.relays:
            _end_group(relay, 3.0)
        self.relays.clear()
        for host in self.hosts:
            for pid in _ip("netns", "pids", host.namespace, check=False).stdout.split():  # ours: in our namespace
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), signal.SIGKILL)
            _ip("netns", "del", host.namespace, check=False)
        self.hosts.clear()
        _ip("link", "del", self.bridge, check=False)


def _end_group(process: subprocess.Popen[bytes], grace: float) -> None:
    """TERM the process's group, KILL it after `grace` seconds; only groups this harness started."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(grace)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # the group's children too, even when its leader has gone
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(5)


@dataclass
class Process:
    """One started Procfile line: its type, group, log file, and (an API) where it listens."""

    kind: str
    name: str
    popen: subprocess.Popen[bytes]
    log: Path
    address: str
    port: int | None
    host: Host | None = None

    @property
    def url(self) -> str:
        return f"http://{self.address}:{self.port}"

    def alive(self) -> bool:
        return self.popen.poll() is None

    def signal(self, sig: int) -> None:
        """Send a signal to the whole group (the gunicorn master and its workers, say)."""
        os.killpg(self.popen.pid, sig)

    def tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


@dataclass
class Deployment:
    """The service as the Procfile defines it, started process by process with the test's environment.

    `env` is the service's configuration as docs/deployment.md gives it (POSTGRES_*, REDIS_URL, CRONACA_*),
    with the servers on 127.0.0.1; in namespaces their addresses are rewritten to the relays'."""

    env: Mapping[str, str]
    folder: Path | None = None
    network: str = "auto"  # "netns", "loopback", or "auto": namespaces where the machine allows
    procfile: Path = ROOT / "Procfile"
    processes: list[Process] = field(default_factory=list)
    net: Network | None = None
    _own_folder: bool = False

    def __post_init__(self) -> None:
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="cronaca-deploy-"))
            self._own_folder = True
        self.folder.mkdir(parents=True, exist_ok=True)
        self.lines = procfile(self.procfile)
        if self.network == "auto":  # CRONACA_FAULTS_NETWORK=loopback|netns chooses for the whole suite
            chosen = os.environ.get("CRONACA_FAULTS_NETWORK", "auto")
            self.network = chosen if chosen != "auto" else ("netns" if netns_possible() else "loopback")
        if self.network not in ("netns", "loopback"):
            raise ValueError(f"network is netns, loopback or auto, not {self.network!r}")
        self._service_env = dict(self.env)

    # ---- the whole -------------------------------------------------------------------------------

    def __enter__(self) -> Deployment:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def upgrade(self, timeout: float = 60) -> list[str]:
        """The schema, before any process starts: `cronaca db upgrade` (its output lines), or the fallback."""
        if importlib.util.find_spec("api.schema") is not None:
            done = subprocess.run([str(VENV_BIN / "cronaca"), "db", "upgrade"], cwd=ROOT, env=self._environ({}),
                                  capture_output=True, text=True, timeout=timeout, check=False)
            if done.returncode != 0:
                raise RuntimeError(f"cronaca db upgrade failed ({done.returncode}): {done.stdout}{done.stderr}")
            return done.stdout.splitlines()
        from domain.records import Records
        from domain.records.settings import Settings

        store = Settings.from_env(dict(self.env)).store
        Records({**store, "CREATE_TABLE": "true"}).close()  # until api/schema.py exists (issue 16, H1)
        return ["tables created by the records application (no `cronaca db upgrade` yet)"]

    def _environ(self, overrides: Mapping[str, str]) -> dict[str, str]:
        # processes never create tables (the library's CREATE_TABLE, read under the application's name first)
        env = subprocess_env({"RECORDS_CREATE_TABLE": "false", **self._service_env, **overrides})
        env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}"
        return env

    def _network(self) -> Network:
        """The bridge and the relays, made on the first process started in a namespace."""
        if self.net is None:
            assert self.folder is not None
            self.net = Network(self.folder)
            env = dict(self.env)
            if env.get("POSTGRES_HOST") in ("127.0.0.1", "localhost") and env.get("POSTGRES_PORT"):
                env["POSTGRES_HOST"] = self.net.relay(int(env["POSTGRES_PORT"]))
            redis_url = env.get("REDIS_URL")
            if redis_url:
                parts = urlsplit(redis_url)
                if parts.hostname in ("127.0.0.1", "localhost") and parts.port:
                    gateway = self.net.relay(parts.port)
                    env["REDIS_URL"] = urlunsplit(parts._replace(netloc=f"{gateway}:{parts.port}"))
            self._service_env = env
        return self.net

    def start(self, kind: str, port: int | None = None, wait: bool = True, timeout: float = 40,
              **overrides: str) -> Process:
        """Start one process of type `kind` (a Procfile line); an `api` waits until `/readyz` answers 200."""
        if kind not in self.lines:
            raise KeyError(f"the Procfile has no process type {kind!r}; it has {', '.join(self.lines)}")
        assert self.folder is not None
        name = f"{kind}.{sum(1 for p in self.processes if p.kind == kind) + 1}"
        host = self._network().add_host() if self.network == "netns" else None
        address = host.address if host is not None else "127.0.0.1"
        port = port or free_port()
        metrics = self.folder / f"metrics-{name}"
        metrics.mkdir(exist_ok=True)
        env = self._environ({"PORT": str(port), "CRONACA_BIND": address, "PROMETHEUS_MULTIPROC_DIR": str(metrics),
                             **overrides})
        command = ["sh", "-c", self.lines[kind]]
        if host is not None:
            command = ["ip", "netns", "exec", host.namespace, *command]
        log_path = self.folder / f"{name}.log"
        with log_path.open("wb") as log:
            popen = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        process = Process(kind, name, popen, log_path, address, port if kind == "api" else None, host)
        self.processes.append(process)
        if wait and kind == "api":
            self.wait_ready(process, timeout)
        return process

    def ready(self, process: Process, timeout: float = 2.0) -> int | None:
        """The status `/readyz` answers now, None when nothing answers."""
        try:
            with urllib.request.urlopen(f"{process.url}/readyz", timeout=timeout) as answer:
                return int(answer.status)
        except urllib.error.HTTPError as exc:
            return int(exc.code)
        except (OSError, ValueError):
            return None

    def wait_ready(self, process: Process, timeout: float = 40) -> float:
        """Seconds until `/readyz` answered 200; fails with the log's tail if the process died or took too long."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            if not process.alive():
                raise RuntimeError(f"{process.name} exited ({process.popen.returncode}) before it was ready:\n"
                                   f"{process.tail()}")
            if self.ready(process, 1.0) == 200:
                return time.monotonic() - started
            time.sleep(0.1)
        raise TimeoutError(f"{process.name} was not ready within {timeout} s:\n{process.tail()}")

    def stop_process(self, process: Process, grace: float = STOP_GRACE) -> None:
        _end_group(process.popen, grace)

    def stop(self) -> None:
        """End every process group this deployment started, then its namespaces, bridge and relays."""
        try:
            for process in reversed(self.processes):
                with contextlib.suppress(Exception):
                    _end_group(process.popen, STOP_GRACE)
        finally:
            if self.net is not None:
                self.net.close()
                self.net = None
            if self._own_folder and self.folder is not None:
                shutil.rmtree(self.folder, ignore_errors=True)

    def logs(self) -> Iterator[tuple[str, str]]:
        for process in self.processes:
            yield process.name, process.tail(200)
