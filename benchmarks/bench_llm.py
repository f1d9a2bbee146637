"""The LLM fallback's own cost, without the model: recall, prompt, validation and IR.

    uv run python benchmarks/bench_llm.py            # ~2 s
    uv run python benchmarks/bench_llm.py --rounds 200

A canned client answers at once with a fixed compact array, so `FallbackParse.overhead_s`
(everything `Fallback.parse` does besides the call) is all that is timed; the budget is
1 ms per turn. Each utterance is paired with the answer a model would give, and
the pairs run round-robin after a warm-up. p99 is nearest-rank. Exits 1 when the median
is over budget.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Mapping, Sequence

from jiayu.cli import demo_home_path
from jiayu.compiler.llm import Fallback
from jiayu.compiler.llm.context import recall
from jiayu.home import load_home

BUDGET_S = 1e-3
CASES = (
    ("客厅有点热", '[{"a":"设置温度=-1","s":"客厅","n":"空调","t":"AirConditioner","q":"one"}]'),
    ("帮我把那个凉快的东西开开", '[{"a":"打开","s":"*","n":"*","t":"Unknown","q":"one"}]'),
    (
        "除了卧室，其他地方的灯都给我灭了，再把书房空调弄成除湿",
        '[{"a":"关闭","s":"*,!卧室","n":"灯","t":"Light","q":"all"},'
        '{"a":"设置模式=除湿","s":"书房","n":"空调","t":"AirConditioner","q":"one"}]',
    ),
    (
        "太暗了看不清",
        '```json\n[{"a":"设置亮度=+10","s":"*","n":"*","t":"Unknown","q":"one"}]\n```',
    ),
    ("让我进屋", '[{"a":"打开","s":"玄关","n":"门锁","t":"Lock","q":"one"}]'),
    ("随便说点啥", '[{"a":"UNKNOWN","s":"*","n":"*","t":"Unknown","q":"one"}]'),
)


class Canned:
    """A model that answers instantly with the next scripted text."""

    def __init__(self) -> None:
        self.answer = ""

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        temperature: float,
        top_p: float,
        max_tokens: int,
    ) -> str:
        return self.answer


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, -(-99 * len(ordered) // 100) - 1)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=500, help="passes over the cases")
    args = parser.parse_args(argv)
    home = load_home(demo_home_path())
    model = Canned()
    fallback = Fallback(model, home)
    recent = ("ac_living", "light_living")
    for text, answer in CASES * 20:  # warm-up
        model.answer = answer
        fallback.parse(text, recent_devices=recent, recent_rooms=("living",))
    overhead: list[float] = []
    recalls: list[float] = []
    for _ in range(args.rounds):
        for text, answer in CASES:
            model.answer = answer
            result = fallback.parse(text, recent_devices=recent, recent_rooms=("living",))
            overhead.append(result.overhead_s)
            start = time.perf_counter()
            recall(home, text, recent=recent)
            recalls.append(time.perf_counter() - start)
    median = statistics.median(overhead)
    print(f"demo home: {len(home.devices)} devices, {len(overhead)} parses")
    print(
        f"fallback overhead (recall + prompt + validation + IR, no model): "
        f"median {median * 1e6:.0f} µs, p99 {_p99(overhead) * 1e6:.0f} µs "
        f"(budget {BUDGET_S * 1e6:.0f} µs)"
    )
    print(
        f"  of which recall: median {statistics.median(recalls) * 1e6:.1f} µs, "
        f"p99 {_p99(recalls) * 1e6:.1f} µs"
    )
    return 0 if median < BUDGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
