"""What `make bench` prints: its rows against the issue's targets, and the figures it reads from its
load client (wrk with scripts/bench.lua, or the Python fallback). The bench itself is run by
`make bench`, never by the suite; nothing here asserts a time."""

import importlib.util
import shutil
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
sys.path.insert(0, str(SCRIPTS))  # the script imports servers.py, as when run from scripts/
spec = importlib.util.spec_from_file_location("bench_script", SCRIPTS / "bench.py")
assert spec is not None and spec.loader is not None
bench = importlib.util.module_from_spec(spec)
sys.modules["bench_script"] = bench  # dataclasses look their module up while the script loads
spec.loader.exec_module(bench)


def stats(rps: float, p50: float = 1, p99: float = 2, unexpected: int = 0):
    return bench.Stats(int(rps * 2), 2, p50, p99, unexpected)


def test_a_page_row_names_its_ratio_target_and_whether_it_is_met():
    healthz = stats(1000)
    assert bench.ratio_row("warm", stats(950), healthz, 0.9) == [
        "warm", "950", "1000", "0.95×", "≥ 0.90×", "ok"
    ]  # fmt: skip
    uncached = bench.ratio_row("uncached", stats(30), healthz, 1 / 25)
    assert uncached[3:] == ["0.03× (1/33)", "≥ 0.04× (1/25)", "MISSED"]
    # a fast answer with the wrong status does not count as met
    revalidated = bench.ratio_row("304", stats(990, unexpected=3), healthz, 0.9)
    assert (revalidated[1], revalidated[-1]) == ("990, 3 unexpected", "MISSED")


def test_a_flag_row_is_met_only_when_every_target_is():
    assert bench.flag_row("Redis", stats(100, p50=8), stats(250, p99=120))[-1] == "ok"
    assert bench.flag_row("Redis", stats(100, p50=8), stats(250, p99=160))[-1] == "MISSED"
    assert bench.flag_row("none", stats(100, p50=12), stats(250, p99=120))[-1] == "MISSED"
    assert bench.flag_row("none", stats(100, p50=8), stats(150, p99=120))[-1] == "MISSED"


def test_the_table_is_markdown_with_numbers_right_aligned():
    lines = bench.table(["page", "req/s"], [["arena", "12"]]).splitlines()
    assert lines == ["| page | req/s |", "|---|---:|", "| arena | 12 |"]


class Answer(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/" else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.mark.parametrize("client", ["wrk", "python"])
def test_the_load_client_counts_answers_and_the_unexpected_ones(server, client, monkeypatch):
    if client == "wrk" and not shutil.which("wrk"):
        pytest.skip("wrk is not installed (make bench-deps)")
    monkeypatch.setattr(bench, "WRK", shutil.which("wrk") if client == "wrk" else None)
    good = bench.load(server, "/", 1, connections=1)
    assert good.requests > 0 and good.unexpected == 0 and good.rps > 0
    assert 0 < good.p50_ms <= good.p99_ms
    bad = bench.load(server, "/missing", 1, connections=1)
    assert bad.requests > 0 and bad.unexpected == bad.requests
