"""`jiayu parse`: show a grammar author how an utterance compiles, or where it stops."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from jiayu.compiler.lalr import Leaf, Node, Stuck
from jiayu.compiler.lexicon import FILLER
from jiayu.compiler.parse import compile_text, parse_kinds
from jiayu.ir import NoParse, Token, to_json

if TYPE_CHECKING:
    from jiayu.engine import Engine


def explain(text: str, engine: Engine) -> str:
    """Tokens with how each matched, the parse tree, the IR, the compact form, the confidence."""
    compiled = compile_text(text, engine.lexicon)
    lines = [f"text        {compiled.text}", "tokens"]
    for t in compiled.tokens:
        shown = t.said if t.said == t.text else f"{t.said} → {t.text}"
        lines.append(
            f"  {t.start:>3}  {t.kind:<12} {shown:<12} {t.match}"
            + (f"  {t.value!r}" if t.value is not None and t.kind != FILLER else "")
        )
    words = [t for t in compiled.tokens if t.kind != FILLER]
    if words:
        tree = parse_kinds(tuple(t.kind for t in words))
        if not isinstance(tree, Stuck):
            lines += ["tree", *_tree_lines(tree, words, 1)]
    if isinstance(compiled, NoParse):
        lines += [
            f"no parse    {compiled.reason} at {compiled.position}: {compiled.detail}",
            "            " + compiled.text,
            "            " + " " * compiled.position + "^",
        ]
        return "\n".join(lines)
    result = engine.fresh().turn(text)
    lines += [
        "ir",
        json.dumps(to_json(compiled), ensure_ascii=False, indent=2),
        f"compact     {json.dumps(result.compact, ensure_ascii=False)}",
        f"confidence  {compiled.confidence}",
    ]
    return "\n".join(lines)


def _tree_lines(node: Node | Leaf, words: list[Token], depth: int) -> list[str]:
    """The tree one node a line, indented by depth; a word shows its kind and what was said."""
    pad = "  " * depth
    if isinstance(node, Leaf):
        return [f"{pad}{node.kind}  {words[node.index].said}"]
    return [f"{pad}{node.data}"] + [
        line for child in node.children for line in _tree_lines(child, words, depth + 1)
    ]
