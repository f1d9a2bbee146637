"""The grammar's LALR tables, computed by Lark and written to a data file the parser reads.

Lark is the grammar compiler: it checks grammar/jiayu.lark and builds its LALR(1) tables.
At run time only the tables are needed, and importing Lark costs more than the rest of jiayu
(its import pulls in hashlib, hence OpenSSL, and `regex` when that is installed: about 7 MiB
and 25 ms of a 25 MiB, 100 ms start-up). So the tables are built here, ahead of time, into
grammar/jiayu.tables.json, and compiler/lalr.py runs them with no Lark at all.

After editing the grammar, regenerate (tests/test_lalr.py fails until you do):

    uv run python -m jiayu.compiler.tables

Until then the parser notices the file is stale (it keeps the grammar text it was built
from) and builds the tables here, in memory, at the first parse: slower, never wrong.

Besides the parse table, each rule carries how Lark would shape its tree node, so the trees
are the ones Lark builds (lark/parse_tree_builder.py): `?rule` with one child is replaced by
that child (unless aliased), children that are `_rule`s are spliced into their parent, and
filtered-out terminals (`_NAME`) are dropped except in a `!rule`. `[...]` placeholders are
not supported (this grammar uses none): build_tables() refuses them rather than shaping its
trees wrongly.
"""

from __future__ import annotations

import json
from typing import Any

from jiayu.compiler.lalr import TABLES_FILE, grammar_text


def build_tables(grammar: str) -> dict[str, Any]:
    """The LALR tables of `grammar` and its rules' tree shapes, as plain JSON data.

    states: one line per state, of token or rule names each followed by its action: n ≥ 0
    shifts to (or, for a rule name, goes to) state n; n < 0 reduces by rule -1-n.
    rules: [rule name, tree name, length of the right-hand side, expand single child,
    children kept], where children kept is null (all, as they are) or [[index, splice], ...]."""
    from lark import Lark
    from lark.grammar import Terminal

    lark = Lark(grammar, parser="lalr", lexer="basic", maybe_placeholders=True)
    # Lark numbers states and orders rules by iterating sets of strings, which differ from
    # one process to the next (hash randomisation). Rules are put in a sorted order and
    # states numbered breadth-first from the start state, symbols in sorted order, so the
    # same grammar always writes the same file.
    ordered = sorted(
        lark.rules, key=lambda r: (r.origin.name, [s.name for s in r.expansion], r.alias or "")
    )
    index = {id(rule): i for i, rule in enumerate(ordered)}
    rules: list[list[Any]] = []
    for rule in ordered:
        if rule.options.empty_indices:
            raise ValueError(f"[...] placeholders are not supported: {rule}")
        kept = [
            [i, 0 if sym.is_term else int(sym.name.startswith("_"))]
            for i, sym in enumerate(rule.expansion)
            # (In a `!rule` Lark's grammar compiler has already turned filter_out off.)
            if not (isinstance(sym, Terminal) and sym.filter_out)
        ]
        filtered = len(kept) < len(rule.expansion) or any(splice for _, splice in kept)
        rules.append(
            [
                rule.origin.name,
                rule.alias or rule.origin.name,
                len(rule.expansion),
                int(bool(rule.options.expand1) and not rule.alias),
                kept if filtered else None,
            ]
        )
    table = lark.parser.parser.parser.parse_table  # ParsingFrontend → LALR_Parser → _Parser
    start = table.start_states["start"]
    number = {start: 0}
    queue = [start]
    for state in queue:  # grows while it is walked: breadth-first
        for _, (action, arg) in sorted(table.states[state].items()):
            if action.name == "Shift" and arg not in number:
                number[arg] = len(number)
                queue.append(arg)
    states: list[dict[str, int]] = []
    for state in queue:
        states.append(
            {
                symbol: -1 - index[id(arg)] if action.name == "Reduce" else number[arg]
                for symbol, (action, arg) in sorted(table.states[state].items())
            }
        )
    names = {rule.origin.name for rule in lark.rules}
    terminals = sorted({symbol for actions in states for symbol in actions} - names)
    lines = [" ".join(f"{symbol} {n}" for symbol, n in actions.items()) for actions in states]
    return {
        "generated_by": "python -m jiayu.compiler.tables; do not edit",
        "grammar": grammar,
        "start": 0,
        "end": number[table.end_states["start"]],
        "terminals": terminals,
        "rules": rules,
        "states": lines,
    }


def write(path: str) -> None:
    data = build_tables(grammar_text())
    with open(path, "w", encoding="utf-8") as out:
        json.dump(data, out, ensure_ascii=False, separators=(",", ":"))
        out.write("\n")


if __name__ == "__main__":
    from pathlib import Path

    target = Path(__file__).resolve().parent.parent / "grammar" / TABLES_FILE
    write(str(target))
    print(f"wrote {target}")
