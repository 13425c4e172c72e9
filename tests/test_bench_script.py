"""The bench's own pieces (scripts/bench.py's options, and bench_tools.py's reading of wrk's result
line and the tables it prints); the bench itself is run by `make bench`, never by the suite."""

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
# the script imports its sibling modules, as it does when run as `python scripts/bench.py`
sys.path.insert(0, str(SCRIPTS))
SCRIPT = SCRIPTS / "bench.py"
spec = importlib.util.spec_from_file_location("bench_script", SCRIPT)
assert spec is not None and spec.loader is not None
bench = importlib.util.module_from_spec(spec)
sys.modules["bench_script"] = bench  # dataclasses look their module up while the script loads
spec.loader.exec_module(bench)
tools = sys.modules["bench_tools"]


def test_wrk_result_line_gives_rate_latencies_and_statuses():
    output = (
        "Running 2s test @ http://127.0.0.1:8000/\n"
        'BENCH {"requests": 500, "seconds": 2.000000, "p50_us": 1500, "p99_us": 12000, '
        '"mean_us": 2000.0, "socket_errors": 1, "statuses": {"201": 497, "429": 2}}\n'
    )
    stats = tools.parse_wrk(output)
    assert stats.rps == 250
    assert (stats.p50_ms, stats.p99_ms) == (1.5, 12)
    assert stats.count_not("2") == 3  # two 429s and a socket error
    assert stats.status_text() == "201: 497, 429: 2"


def test_wrk_output_without_result_line_is_an_error():
    with pytest.raises(RuntimeError, match="no result line"):
        tools.parse_wrk("unable to connect to 127.0.0.1:1 Connection refused\n")


def test_markdown_table_aligns_numbers_right():
    table = tools.markdown_table(["page", "req/s"], [["arena", "12"]])
    assert table.splitlines() == ["| page | req/s |", "|---|---:|", "| arena | 12 |"]


def test_percentile_is_nearest_rank():
    values = [float(v) for v in range(1, 101)]
    assert tools.percentile(values, 50) == 50
    assert tools.percentile(values, 99) == 99
    assert tools.percentile([3.0, 1.0, 2.0], 99) == 3


def test_options_choose_parts_and_refuse_unknown_ones(capsys):
    args = bench.parse_args(["--only", "pages,queue", "--duration", "5"])
    assert (args.parts, args.duration) == (["pages", "queue"], 5)
    assert bench.parse_args([]).parts == list(bench.PARTS)
    with pytest.raises(SystemExit):
        bench.parse_args(["--only", "pages,nonsense"])
    assert "unknown part(s): nonsense" in capsys.readouterr().err


def test_thread_counts_pick_the_worker_class():
    assert bench.flag_configs("1,4") == [(1, "sync"), (4, "gthread")]


def _stats(rps):
    return tools.Stats(requests=int(rps * 2), seconds=2, p50_ms=1, p99_ms=2)


def test_the_cold_arena_page_is_the_round_of_median_ratio():
    reply = tools.Reply(status=200, headers={}, body=b"", seconds=0.01)
    rounds = [
        (_stats(1800), tools.Measured(_stats(150), reply)),  # 12×
        (_stats(1000), tools.Measured(_stats(150), reply)),  # 6.7×: /healthz slowed by a neighbour
        (_stats(1800), tools.Measured(_stats(100), reply)),  # 18×: the page slowed
        (_stats(1750), tools.Measured(_stats(160), reply)),  # 10.9×
        (_stats(1800), tools.Measured(_stats(0), reply)),  # nothing completed: the worst
    ]
    reference, page = tools.median_round(rounds)
    assert (reference.rps, page.stats.rps) == (1800, 150)
    assert tools.median_round(rounds[:1]) == rounds[0]
    with pytest.raises(ValueError):
        tools.median_round([])
    assert bench.parse_args(["--cold-rounds", "3"]).cold_rounds == 3
    assert bench.parse_args([]).cold_rounds == 5
