"""What `make bench` prints: its rows against the issue's targets, and the figures it reads from its
load client (wrk with scripts/bench.lua, or the Python fallback). The bench itself is run by
`make bench`, never by the suite; nothing here asserts a time."""

import importlib.util
import json
import shutil
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.conf import settings

SCRIPTS = Path(settings.BASE_DIR) / "scripts"
sys.path.insert(0, str(SCRIPTS))  # the script imports servers.py, as when run from scripts/
spec = importlib.util.spec_from_file_location("bench_script", SCRIPTS / "bench.py")
assert spec is not None and spec.loader is not None
bench = importlib.util.module_from_spec(spec)
sys.modules["bench_script"] = bench  # dataclasses look their module up while the script loads
spec.loader.exec_module(bench)


def stats(rps: float, p50: float = 1, p99: float = 2, unexpected: int = 0):
    return bench.Stats(rps, p50, p99, unexpected)


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
    assert bench.flag_row("Redis", [stats(100, p50=8)], [stats(250, p99=120)])[-1] == "ok"
    assert bench.flag_row("Redis", [stats(100, p50=8)], [stats(250, p99=160)])[-1] == "MISSED"
    assert bench.flag_row("none", [stats(100, p50=12)], [stats(250, p99=120)])[-1] == "MISSED"
    assert bench.flag_row("none", [stats(100, p50=8)], [stats(150, p99=120)])[-1] == "MISSED"


def test_a_flag_row_shows_the_median_round_and_misses_on_any_unexpected_answer():
    ones = [stats(100, p50=14), stats(100, p50=8), stats(100, p50=9)]
    manys = [stats(150, p99=200), stats(260, p99=90), stats(230, p99=110)]
    assert bench.flag_row("Redis", ones, manys) == ["Redis", "9.0", "230", "110", "0", "ok"]
    manys[1] = stats(260, p99=90, unexpected=1)
    assert bench.flag_row("Redis", ones, manys)[-2:] == ["1", "MISSED"]


def test_the_table_is_markdown_with_numbers_right_aligned():
    lines = bench.table(["page", "req/s"], [["arena", "12"]]).splitlines()
    assert lines == ["| page | req/s |", "|---|---:|", "| arena | 12 |"]


class Answer(BaseHTTPRequestHandler):
    flags: list[tuple[str, dict]] = []
    gets = 0

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.flags.append((self.headers["X-Forwarded-For"], body))
        self.send_response(201)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        Answer.gets += 1
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
    assert good.rps > 0 and good.unexpected == 0
    assert 0 < good.p50_ms <= good.p99_ms
    Answer.gets = 0
    bad = bench.load(server, "/missing", 1, connections=1)
    # every answer was a 404 (the last one may have been cut short when the run ended)
    assert bad.rps > 0 and Answer.gets - 1 <= bad.unexpected <= Answer.gets


@pytest.mark.parametrize("client", ["wrk", "python"])
def test_a_flag_flood_never_files_a_cell_twice_from_one_client(
    server, client, monkeypatch, tmp_path
):
    if client == "wrk" and not shutil.which("wrk"):
        pytest.skip("wrk is not installed (make bench-deps)")
    monkeypatch.setattr(bench, "WRK", shutil.which("wrk") if client == "wrk" else None)
    cells = list(range(100, 105))
    (tmp_path / "cells").write_text("".join(f"{pk}\n" for pk in cells))
    Answer.flags.clear()
    flood = bench.Flood(cells, str(tmp_path / "cells"), clients=3, phase=7, start=2)
    stats = bench.load(server, "/api/flags/", 1, connections=1, expected=201, flood=flood)
    sent = Answer.flags[:15]  # three clients on five cells: every pair once
    assert stats.rps > 0 and stats.unexpected == 0
    assert {body["cell"] for _, body in sent} == set(cells)
    # a run starts at its own cell, the one after the last run's (wrk asks for one request more,
    # unsent, as it starts), and goes on in order
    first = cells.index(sent[0][1]["cell"])
    assert first == (3 if client == "wrk" else 2)
    assert [body["cell"] for _, body in sent[:5]] == [*cells[first:], *cells[:first]]
    assert {address for address, _ in sent} == {"10.7.0.0", "10.7.0.1", "10.7.0.2"}
    assert len({(address, body["cell"]) for address, body in sent}) == len(sent)
    assert all(body["reason"] == "other" and body["explanation"] for _, body in sent)
