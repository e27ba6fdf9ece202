"""The processes of a scale-out deployment on loopback: ``redis-server``, mcpkit replicas
and ``nginx`` round-robin in front of them (used by the test fixtures and by
bench/scaleout.py). A missing ``redis-server`` or ``/usr/sbin/nginx`` raises at once.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpkit.redis.keys import default_prefix

ROOT = Path(__file__).resolve().parents[2]
#: The deployment secret every replica of the test deployments is given.
STORE_SECRET = "scaleout-test-deployment-secret-0001"
#: The key prefix of the replicas' server ("scaleout") with that secret.
PREFIX = default_prefix(STORE_SECRET.encode(), "scaleout")
NGINX = "/usr/sbin/nginx"


#: Ports services listen on are drawn below the kernel's ephemeral range (32768-60999 on
#: Linux). A service that is stopped and started again (Redis in the outage test, a killed
#: replica) must find its port free: with a port inside the ephemeral range, a client that
#: keeps reconnecting to it meanwhile can be given that very port as its own source port
#: and connect to itself (TCP simultaneous open), holding the port so the restart fails.
_SERVICE_PORTS = (20_000, 32_000)


def free_port() -> int:
    """A free port on 127.0.0.1 outside the ephemeral range."""
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(*_SERVICE_PORTS)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {_SERVICE_PORTS}")


def wait_port(port: int, proc: subprocess.Popen[Any] | None, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before listening on {port}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout}s")


@dataclass
class Redis:
    """A throw-away redis-server (no persistence) that can be stopped and restarted."""

    directory: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (scripts/system_packages.sh)")
        self.proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.directory),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_port(self.port, self.proc)

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(10)


@dataclass
class Replica:
    name: str
    port: int
    redis_url: str
    log: Path
    proc: subprocess.Popen[bytes] | None = None
    #: Serve with the memory store (one process, no Redis) instead.
    memory: bool = False

    def start(self) -> None:
        self.spawn()
        wait_port(self.port, self.proc)

    def spawn(self) -> None:
        """Start without waiting for it to listen (see :meth:`listening`)."""
        # This tree's mcpkit (src/) first: a copy of the tree runs its own code, not the
        # checkout the venv's editable install points at.
        path = os.pathsep.join((str(ROOT / "src"), str(ROOT)))
        env = {
            **os.environ,
            "PYTHONPATH": path,
            "MCPKIT_REQUEST_STATE_KEYS": "",
            "MCPKIT_STORE_SECRET": STORE_SECRET,
        }
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tests.scaleout.replica",
                    "--port",
                    str(self.port),
                    "--redis",
                    self.redis_url,
                    "--id",
                    self.name,
                    *(["--memory"] if self.memory else []),
                ],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=log,
            )

    def listening(self) -> bool:
        if self.proc is None or self.proc.poll() is not None:
            return False
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", self.port)) == 0

    def kill(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


NGINX_CONF = """
daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/nginx-error.log warn;
events {{ worker_connections 8192; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    upstream mcp {{
{servers}
        keepalive 32;
    }}
    server {{
        listen 127.0.0.1:{port};
        location /mcp {{
            proxy_pass http://mcp;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_buffering off;
            proxy_cache off;
            proxy_read_timeout 3600s;
            proxy_send_timeout 3600s;
            proxy_next_upstream error timeout;
            proxy_connect_timeout 2s;
        }}
    }}
}}
"""


@dataclass
class Nginx:
    directory: Path
    upstreams: list[int]
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self) -> None:
        if not os.path.exists(NGINX):
            raise RuntimeError(f"{NGINX} is not installed (scripts/system_packages.sh)")
        servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=0;" for p in self.upstreams)
        conf = self.directory / "nginx.conf"
        conf.write_text(NGINX_CONF.format(dir=self.directory, servers=servers, port=self.port))
        self.proc = subprocess.Popen(
            [NGINX, "-p", str(self.directory), "-c", str(conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_port(self.port, self.proc)

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            proc.wait(10)


@dataclass
class Deployment:
    redis: Redis
    replicas: list[Replica]
    nginx: Nginx

    @property
    def url(self) -> str:
        return self.nginx.url

    def replica(self, name: str) -> Replica:
        return next(r for r in self.replicas if r.name == name)

    def restart(self, name: str) -> None:
        replica = self.replica(name)
        replica.kill()
        replica.start()

    def ensure_running(self) -> None:
        for replica in self.replicas:
            if replica.proc is None or replica.proc.poll() is not None:
                replica.spawn()
        for replica in self.replicas:
            wait_port(replica.port, replica.proc)


def start_deployment(directory: Path, replicas: int = 3) -> Deployment:
    """Redis, ``replicas`` mcpkit replicas on it and nginx in front (all started)."""
    redis = Redis(directory)
    redis.start()
    members = [
        Replica(f"r{i}", free_port(), redis.url, directory / f"r{i}.log")
        for i in range(1, replicas + 1)
    ]
    nginx = Nginx(directory, [r.port for r in members])
    deployment = Deployment(redis, members, nginx)
    try:
        for replica in members:
            replica.spawn()
        for replica in members:
            wait_port(replica.port, replica.proc)
        nginx.start()
    except BaseException:
        stop_deployment(deployment)
        raise
    return deployment


def stop_deployment(deployment: Deployment) -> None:
    deployment.nginx.stop()
    for replica in deployment.replicas:
        replica.stop()
    deployment.redis.stop()


def direct_url(replica: Replica) -> str:
    return f"http://127.0.0.1:{replica.port}/mcp"


@dataclass
class RedisClusterNodes:
    """A throw-away Redis Cluster of ``masters`` redis-server processes on loopback (no
    replicas, no persistence), each in a folder of its own, slots spread by
    ``redis-cli --cluster create``; :meth:`start` returns once every node says
    ``cluster_state:ok``. Stands where a :class:`Redis` does (``url``, ``proc``,
    ``start``/``stop``)."""

    directory: Path
    masters: int = 3
    ports: list[int] = field(default_factory=list)
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in self.ports) + "/"

    @property
    def proc(self) -> subprocess.Popen[bytes] | None:
        return self.procs[0] if self.procs else None

    def start(self) -> None:
        binary = shutil.which("redis-server")
        cli = shutil.which("redis-cli")
        if binary is None or cli is None:
            raise RuntimeError(
                "redis-server/redis-cli are not installed (scripts/system_packages.sh)"
            )
        if not self.ports:
            self.ports = [free_port() for _ in range(self.masters)]
        for port in self.ports:
            node_dir = self.directory / f"node-{port}"
            node_dir.mkdir(parents=True, exist_ok=True)
            self.procs.append(
                subprocess.Popen(
                    [
                        binary,
                        "--port",
                        str(port),
                        "--bind",
                        "127.0.0.1",
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        str(node_dir / "nodes.conf"),
                        # The bus port outside the ephemeral range too (default: port + 10000).
                        "--cluster-port",
                        str(free_port()),
                        "--cluster-node-timeout",
                        "5000",
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                        "--dir",
                        str(node_dir),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        for port, proc in zip(self.ports, self.procs, strict=True):
            wait_port(port, proc)
        subprocess.run(
            [
                cli,
                "--cluster",
                "create",
                *(f"127.0.0.1:{p}" for p in self.ports),
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=60,
        )
        deadline = time.monotonic() + 60
        for port in self.ports:
            while True:
                info = subprocess.run(
                    [cli, "-p", str(port), "cluster", "info"],
                    capture_output=True,
                    text=True,
                    timeout=10,
                ).stdout
                if "cluster_state:ok" in info:
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"cluster node {port} not ok after 60s:\n{info}")
                time.sleep(0.05)

    def stop(self) -> None:
        procs, self.procs = self.procs, []
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
        for proc in procs:
            proc.wait(10)


def start_cluster_deployment(directory: Path, replicas: int = 3) -> Deployment:
    """A Redis Cluster of 3 masters, ``replicas`` mcpkit replicas on it (``store=`` its
    ``redis+cluster://`` URL) and nginx in front (all started)."""
    nodes = RedisClusterNodes(directory)
    try:
        nodes.start()
    except BaseException:
        nodes.stop()
        raise
    members = [
        Replica(f"r{i}", free_port(), nodes.url, directory / f"r{i}.log")
        for i in range(1, replicas + 1)
    ]
    nginx = Nginx(directory, [r.port for r in members])
    deployment = Deployment(nodes, members, nginx)  # type: ignore[arg-type]
    try:
        for replica in members:
            replica.spawn()
        for replica in members:
            wait_port(replica.port, replica.proc)
        nginx.start()
    except BaseException:
        stop_deployment(deployment)
        raise
    return deployment
