"""Hot-path properties found while profiling the benchmark (issue 7): things that are cheap
by construction and must stay so. No timings: only allocations and imports."""

from __future__ import annotations

import subprocess
import sys
import tracemalloc

import orjson

from mcpkit.transports.http.event_store import MemoryEventStore


def test_event_store_keeps_right_sized_bytes() -> None:
    store = MemoryEventStore()
    messages = [
        orjson.dumps({"jsonrpc": "2.0", "id": i, "result": {"content": []}}) for i in range(500)
    ]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i, data in enumerate(messages):
            store.store_event("s", "k", i + 1, data)
        del messages, data
        retained = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # ~60 bytes of JSON per event: far below the 4 KiB orjson may allocate per output.
    assert retained < 500 * 1024
    assert [seq for seq, _ in store.replay("s", "k", 498) or []] == [499, 500]


def test_http_server_modules_do_not_import_the_http_client() -> None:
    code = (
        "import sys\n"
        "from mcpkit.transports.http import StreamableHTTPApp, MemoryEventStore\n"
        "import mcpkit.server\n"
        "print(','.join(m for m in ('httpx', 'rich') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
