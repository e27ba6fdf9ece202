"""Fixtures of the scale-out suite: a real ``redis-server``, ``nginx`` and 3 mcpkit replicas
(see cluster.py).

Nothing here is skipped: a missing ``redis-server`` or ``/usr/sbin/nginx`` fails loudly
(CI installs both with scripts/system_packages.sh). Every process runs on loopback, in a
temporary directory, and is stopped at the end of the session.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.scaleout.cluster import (
    Deployment,
    Nginx,
    Redis,
    Replica,
    free_port,
    start_deployment,
    stop_deployment,
)

__all__ = ["Deployment", "Nginx", "Redis", "Replica", "free_port"]


@pytest.fixture(scope="session")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    """redis-server, 3 replicas and nginx round-robin in front of them."""
    deployment = start_deployment(tmp_path_factory.mktemp("scaleout"))
    try:
        yield deployment
    finally:
        stop_deployment(deployment)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Redis]:
    """A redis-server of the test's own (no replica, no nginx), stopped after it."""
    made = Redis(tmp_path)
    made.start()
    try:
        yield made
    finally:
        made.stop()


@pytest.fixture
def live(deployment: Deployment) -> Deployment:
    """The deployment with every replica (and Redis) running."""
    if deployment.redis.proc is None:
        deployment.redis.start()
    deployment.ensure_running()
    return deployment


@pytest.fixture
def isolated(tmp_path: Path) -> Iterator[Deployment]:
    """A deployment of its own, for a test that stops Redis: what that leaves behind (the
    replicas' connections, an emptied Redis) must not reach the tests after it."""
    (tmp_path / "scaleout").mkdir()
    deployment = start_deployment(tmp_path / "scaleout")
    try:
        yield deployment
    finally:
        stop_deployment(deployment)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The first test of the folder also starts the deployment (Redis, 3 replicas, nginx):
    on a loaded machine that alone may take tens of seconds, so these tests get a longer
    bound than the suite's default."""
    here = __file__.rsplit("/", 1)[0]
    for item in items:
        if str(item.path).startswith(here) and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(180))
