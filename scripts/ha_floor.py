"""Home Assistant's Chinese phrasing as a floor: sample Assist's zh-CN, zh-TW and zh-HK
templates, run each sentence through jiayu on corpus/homes/ha_floor.json, print the numbers
per language and write the misses, grouped by intent and by the words that fail.

    uv run python scripts/ha_floor.py [--failures FILE] [--per-template N] [--examples K]
                                      [--seed S] [--jsonl FILE]

Another --seed draws other sentences from the same templates: a grammar that reaches the floor
with the test's seed and falls back with another has learnt sentences, not the phrasing.

It imports jiayu from the environment it runs in, so another worktree's grammar is measured
by running this file from that worktree: `cd ../understand && uv run python
/path/to/this/scripts/ha_floor.py`.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "tests"))

import ha_floor  # noqa: E402  (the harness lives beside the test that uses it)

DEFAULT_FAILURES = Path("ha_failures.txt")  # in the directory it runs from; ignored by git
KINDS = ("right", "wrong-device", "unknown", "other-wrong")
_QUOTED = re.compile(r"“([^”]*)”")


def _why(verdict: ha_floor.Verdict) -> str:
    """The group a miss falls in: the words jiayu did not understand, else its outcome."""
    if verdict.kind == "unknown":
        words = _QUOTED.findall(verdict.reply)
        return "not understood: " + ("、".join(words) if words else verdict.reply)
    sent = ",".join(sorted({f"{c['command']}" for c in verdict.sent})) or "nothing sent"
    return f"{verdict.kind}: {verdict.outcome}, {sent}"


def _expected(verdict: ha_floor.Verdict) -> str:
    expected = verdict.expected
    if isinstance(expected, ha_floor.Unsupported):
        return "not to act"
    shown = []
    for reading in expected.readings:
        commands = [
            c.device
            + "."
            + c.command
            + (json.dumps(dict(c.params), ensure_ascii=False) if c.params else "")
            for c in reading.commands
        ]
        shown.append(reading.outcome + " " + " ".join(commands + sorted(reading.answers)))
    return " | ".join(shown)


def _got(verdict: ha_floor.Verdict) -> str:
    sent = " ".join(
        c["device"]
        + "."
        + c["command"]
        + (json.dumps(c["params"], ensure_ascii=False) if c.get("params") else "")
        for c in verdict.sent
    )
    return f"{verdict.outcome} {sent}".strip() + f" «{verdict.reply}»"


def _record(verdict: ha_floor.Verdict) -> str:
    """One miss as a JSON line, for sorting and counting misses by template."""
    sample = verdict.sample
    return json.dumps(
        {
            "language": sample.template.language,
            "intent": sample.intent,
            "template": sample.template.text,
            "text": sample.text,
            "speaker": sample.speaker,
            "kind": verdict.kind,
            "why": _why(verdict),
            "expected": _expected(verdict),
            "got": _got(verdict),
        },
        ensure_ascii=False,
    )


def _by_word(by_group: dict[str, dict[str, list[ha_floor.Verdict]]], examples: int) -> list[str]:
    """Each word jiayu said it did not understand: how often, in which intents, examples."""
    seen: dict[str, list[ha_floor.Verdict]] = defaultdict(list)
    for groups in by_group.values():
        for verdicts in groups.values():
            for v in verdicts:
                if v.kind == "unknown":
                    for word in set(_QUOTED.findall(v.reply)) or {"(no words named)"}:
                        seen[word].append(v)
    ranked = sorted(seen.items(), key=lambda kv: -len(kv[1]))
    out = ["## Words not understood, each counted once per sentence (all languages)"]
    out.append("  " + ", ".join(f"{w} {len(vs)}" for w, vs in ranked))
    out.append("")
    out.append("## By word (the 60 most frequent)")
    for word, verdicts in ranked[:60]:
        intents = Counter(f"{v.sample.template.language} {v.sample.intent}" for v in verdicts)
        out.append(
            f"### {word} ({len(verdicts)}): "
            + ", ".join(f"{k} {n}" for k, n in intents.most_common())
        )
        out += [f"- {v.sample.text}" for v in verdicts[:examples]]
    out.append("")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--failures", type=Path, default=DEFAULT_FAILURES)
    parser.add_argument("--per-template", type=int, default=ha_floor.PER_TEMPLATE)
    parser.add_argument("--examples", type=int, default=4, help="sentences shown per group")
    parser.add_argument("--seed", type=int, default=ha_floor.SEED, help="the sampler's seed")
    parser.add_argument("--jsonl", type=Path, help="also write every miss here, one per line")
    args = parser.parse_args(argv)
    ha_floor.SEED = args.seed

    import jiayu

    engine = ha_floor.engine()
    by_group: dict[str, dict[str, list[ha_floor.Verdict]]] = defaultdict(lambda: defaultdict(list))
    lines: list[str] = []
    misses: list[str] = []
    for language in ha_floor.LANGUAGES:
        verdicts = ha_floor.run(language, engine, args.per_template)
        supported = [v for v in verdicts if not isinstance(v.expected, ha_floor.Unsupported)]
        counts = Counter(v.kind for v in supported)
        share = counts["right"] / len(supported) if supported else 0.0
        lines.append(
            f"{language}: sampled {len(verdicts)}, supported {len(supported)}, "
            f"right {counts['right']} ({share:.1%}), wrong-device {counts['wrong-device']}, "
            f"unknown {counts['unknown']}, other-wrong {counts['other-wrong']}"
        )
        unsupported: Counter[str] = Counter()
        acted: Counter[str] = Counter()
        for v in verdicts:
            if isinstance(v.expected, ha_floor.Unsupported):
                unsupported[v.expected.reason] += 1
                acted[v.expected.reason] += v.kind == "acted"
        listed = ", ".join(
            f"{reason} {n}" + (f" (ACTED {acted[reason]})" if acted[reason] else "")
            for reason, n in sorted(unsupported.items())
        )
        lines.append(f"  unsupported {sum(unsupported.values())}: {listed}")
        outcomes = Counter(
            v.outcome for v in verdicts if isinstance(v.expected, ha_floor.Unsupported)
        )
        lines.append(
            "  unsupported outcomes: " + ", ".join(f"{o} {n}" for o, n in outcomes.most_common())
        )
        for v in verdicts:
            if v.kind not in ("right", "quiet"):
                by_group[f"{language} {v.sample.intent}"][_why(v)].append(v)
                misses.append(_record(v))
    where = Path(jiayu.__file__).resolve().parents[1]
    print(f"jiayu from {where}")
    print("\n".join(lines))

    command = f"cd {where} && uv run --no-sync python {Path(__file__).resolve()}"
    out = [command, "", *lines, ""]
    out += _by_word(by_group, args.examples)
    for intent_key in sorted(by_group, key=lambda k: -sum(map(len, by_group[k].values()))):
        groups = by_group[intent_key]
        out.append(f"## {intent_key}: {sum(map(len, groups.values()))} misses")
        for why, verdicts in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            out.append(f"### {why} ({len(verdicts)})")
            for v in verdicts[: args.examples]:
                out.append(
                    f"- {v.sample.text}"
                    + (f"  [area={v.sample.speaker}]" if v.sample.speaker else "")
                )
                out.append(f"    template: {v.sample.template.text}")
                out.append(f"    expected: {_expected(v)}")
                out.append(f"    got:      {_got(v)}")
        out.append("")
    args.failures.write_text("\n".join(out), encoding="utf-8")
    if args.jsonl:
        args.jsonl.write_text("".join(m + "\n" for m in misses), encoding="utf-8")
    print(f"misses written to {args.failures}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
