"""clcoop/ir/cfg.py: the control-flow analyses, against hand-made graphs and against LLVM's
own dominator trees and loops (opt-22 -passes=print<domtree>,print<postdomtree>,print<loops>)."""
import random
import re
import shutil
import subprocess

import llvmlite.binding as llvm
import pytest

from clcoop.ir import cfg
from clcoop.ir.loader import value_id

# entry -> a -> h <-> l (a loop, h a switch), l -> a (the outer loop), h -> b -> exit.
NESTED = {"entry": ["a", "b"], "a": ["h"], "h": ["l", "exit", "b"], "l": ["h", "a"],
          "b": ["exit"], "exit": []}
DIAMOND = {"s": ["t", "f"], "t": ["j"], "f": ["j"], "j": []}


def test_predecessors_in_node_order_each_once():
    g = {"s": ["x", "x"], "x": ["y"], "y": ["x"]}
    assert cfg.predecessors(g) == {"s": [], "x": ["s", "y"], "y": ["x"]}


def test_reverse_post_order_takes_successors_in_order_and_puts_unreachable_last():
    g = {"e": ["b", "a"], "a": ["c"], "b": ["c"], "c": [], "dead": ["c"]}
    assert cfg.reverse_post_order(g) == ["e", "a", "b", "c", "dead"]
    assert cfg.reverse_post_order(g, children={**g, "e": ["a", "b"]}) == ["e", "b", "a", "c", "dead"]


def test_back_edges_and_natural_loops_of_nested_loops():
    order = cfg.reverse_post_order(NESTED)
    assert cfg.back_edges(order, NESTED) == [("l", "h"), ("l", "a")]
    assert cfg.natural_loops(NESTED) == {"h": {"h", "l"}, "a": {"a", "h", "l"}}


def test_loop_nested_order_puts_a_loop_before_its_exits():
    # clang -O2 lays the loop (h, l) out after its exit x; plain reverse post-order
    # visits x between h and l, the loop-nested order keeps h, l together.
    g = {"e": ["h"], "h": ["x", "l"], "x": [], "l": ["h"]}
    assert cfg.reverse_post_order(g) == ["e", "h", "l", "x"]
    order = cfg.loop_nested_order(g)
    assert order.index("l") == order.index("h") + 1 and order[-1] == "x"
    g2 = {"e": ["h"], "h": ["l", "x"], "l": ["m"], "m": ["h", "x"], "x": []}
    assert cfg.reverse_post_order(g2) == ["e", "h", "l", "m", "x"]
    assert cfg.loop_nested_order(g2) == ["e", "h", "l", "m", "x"]
    g3 = {"e": ["h"], "h": ["x", "l"], "x": ["y"], "y": [], "l": ["m"], "m": ["h"]}
    assert cfg.reverse_post_order(g3) == ["e", "h", "l", "m", "x", "y"]
    g4 = {"e": ["h"], "h": ["l", "x"], "x": ["y"], "y": [], "l": ["h"]}
    assert cfg.reverse_post_order(g4) == ["e", "h", "x", "y", "l"]
    assert cfg.loop_nested_order(g4) == ["e", "h", "l", "x", "y"]


def test_topological_order_and_the_first_back_edge():
    assert cfg.topological_order(DIAMOND) == (["s", "f", "t", "j"], None)
    assert cfg.topological_order(NESTED) == (None, ("l", "h"))


def test_dominators_and_post_dominators_of_a_diamond_and_nested_loops():
    assert cfg.dominators(DIAMOND) == {"s": None, "t": "s", "f": "s", "j": "s"}
    assert cfg.post_dominators(DIAMOND) == {"s": "j", "t": "j", "f": "j", "j": None}
    idom = cfg.dominators(NESTED)
    assert idom == {"entry": None, "a": "entry", "h": "a", "l": "h", "b": "entry", "exit": "entry"}
    assert cfg.dominates(idom, "a", "l") and not cfg.dominates(idom, "l", "a")
    assert cfg.dominates(idom, "h", "h")


def test_post_dominators_leave_out_an_endless_loop():
    g = {"e": ["x", "spin"], "spin": ["spin"], "x": []}
    assert cfg.post_dominators(g) == {"e": "x", "x": None}


def test_region_join_of_an_if_and_of_a_loop():
    g = {"s": ["t", "f"], "t": ["j"], "f": ["j"], "j": ["h"], "h": ["l", "x"], "l": ["h"], "x": []}
    order = cfg.loop_nested_order(g)
    assert order == ["s", "f", "t", "j", "h", "l", "x"]
    back = [(order.index(a), order.index(b)) for a, b in cfg.back_edges(order, g)]
    assert back == [(5, 4)]
    assert cfg.region_join(order, g, back, 0) == 3                      # s .. j
    assert cfg.region_join(order, g, back, 3) == 6                      # j enters the loop, x joins
    assert cfg.region_join(order, g, back, 4) is None                   # h's branch leaves the loop
    preds = cfg.predecessors(g)
    assert cfg.entered_only_from(order, preds, 0, 3)
    assert cfg.entered_only_from(order, preds, 3, 6)
    assert not cfg.entered_only_from(order, preds, 1, 3)                # t is entered from s


IR = """
define void @f(i1 %c, i32 %x) {
entry:
  br i1 %c, label %a, label %"b b"
a:
  switch i32 %x, label %"b b" [ i32 0, label %entry2
                               i32 1, label %a ]
entry2:
  ret void
"b b":
  br i1 %c, label %2, label %entry2
2:
  ret void
}
"""


def test_block_successors_in_llvm_order_by_name_and_by_identity():
    mod = llvm.parse_assembly(IR)
    blocks = list(mod.get_function("f").blocks)
    assert [cfg.block_successors(b) for b in blocks] == [["a", "b b"], ["b b", "entry2", "a"], [],
                                                          ["", "entry2"], []]
    by_id = cfg.block_graph(blocks, key=value_id)
    ids = [value_id(b) for b in blocks]
    assert by_id[ids[3]] == [ids[4], ids[2]]         # the unnamed block by identity


# ------------------------------------------------------------------- against LLVM

def _random_graph(rng, n):
    """Blocks b0..b{n-1}; each reaches the last (a chain), plus random edges (loops,
    some irreducible)."""
    g = {}
    for i in range(n - 1):
        targets = [f"b{i + 1}"]
        for _ in range(rng.randrange(3)):
            targets.append(f"b{rng.randrange(1, n)}")
        rng.shuffle(targets)
        g[f"b{i}"] = targets
    g[f"b{n - 1}"] = []
    return g


def _function_ir(name, g):
    lines = [f"define void @{name}(i32 %x) {{"]
    for block, targets in g.items():
        lines.append(f"{block}:")
        if not targets:
            lines.append("  ret void")
        elif len(targets) == 1:
            lines.append(f"  br label %{targets[0]}")
        else:
            cases = " ".join(f"i32 {k}, label %{t}" for k, t in enumerate(targets[1:]))
            lines.append(f"  switch i32 %x, label %{targets[0]} [ {cases} ]")
    lines.append("}")
    return "\n".join(lines)


def _trees(text, title):
    """{function: {block: parent}} of opt's printed (post)dominator trees."""
    out = {}
    for m in re.finditer(rf"(?<!Post){title} for function: (\w+)\n.*?\n.*?\n(.*?)Roots:", text, re.S):
        parents, stack = {}, []
        for line in m.group(2).splitlines():
            lm = re.match(r"\s*\[(\d+)\]\s+(%\w+|<<exit node>>)", line)
            if not lm:
                continue
            depth, node = int(lm.group(1)), lm.group(2).lstrip("%")
            node = None if node == "<<exit node>>" else node
            del stack[depth - 1:]
            parents[node] = stack[-1] if stack else None
            stack.append(node)
        parents.pop(None, None)
        out[m.group(1)] = parents
    return out


def _loops(text):
    """{function: {header: set of blocks}} of opt's print<loops>."""
    out = {}
    for m in re.finditer(r"Loop info for function '(\w+)':\n((?:\s*Loop at depth.*\n?)*)", text):
        loops = {}
        for line in m.group(2).splitlines():
            blocks = re.findall(r"%(\w+)((?:<\w+>)*)", line)
            header = next(b for b, tags in blocks if "<header>" in tags)
            loops[header] = {b for b, _ in blocks}
        out[m.group(1)] = loops
    return out


@pytest.mark.skipif(shutil.which("opt-22") is None, reason="needs LLVM 22's opt")
def test_dominators_post_dominators_and_loops_match_llvm_on_random_graphs():
    rng = random.Random(27)
    graphs = {f"g{k}": _random_graph(rng, rng.randrange(2, 12)) for k in range(60)}
    module = "\n".join(_function_ir(name, g) for name, g in graphs.items())
    text = subprocess.run(["opt-22", "-disable-output", "-passes=print<domtree>,print<postdomtree>,print<loops>"],
                          input=module, capture_output=True, text=True, check=True).stderr
    doms, pdoms = _trees(text, "DominatorTree"), _trees(text, "PostDominatorTree")
    loops = _loops(text)
    assert len(doms) == len(pdoms) == len(graphs)
    checked_loops = 0
    for name, g in graphs.items():
        assert cfg.dominators(g) == doms[name], name
        assert cfg.post_dominators(g) == pdoms[name], name
        idom = cfg.dominators(g)
        order = cfg.reverse_post_order(g)
        if all(cfg.dominates(idom, h, s) for s, h in cfg.back_edges(order, g)):
            # Reducible: the retreating edges are LLVM's back edges, the loops its loops.
            assert cfg.natural_loops(g) == loops.get(name, {}), name
            checked_loops += 1
    assert checked_loops > 20


def test_the_interpreter_numbers_blocks_false_target_first_unnamed_blocks_by_identity():
    # translate.py's block order is what its scheduler runs diverged lanes in: kept as it
    # was (a conditional branch's false target searched first), with unnamed blocks.
    from clcoop.interp.translate import _reverse_post_order
    mod = llvm.parse_assembly("""
define void @f(i1 %c) {
  br i1 %c, label %1, label %2
1:
  br label %3
2:
  br label %3
3:
  ret void
4:
  ret void
}""")
    blocks = list(mod.get_function("f").blocks)
    order = _reverse_post_order(blocks)
    assert [value_id(b) for b in order] == [value_id(blocks[i]) for i in (0, 1, 2, 3, 4)]
    assert cfg.reverse_post_order(cfg.block_graph(blocks, key=value_id)) == \
        [value_id(blocks[i]) for i in (0, 2, 1, 3, 4)]


def test_reaching_finds_every_transitive_caller_of_a_target():
    calls = {"k": ["f", "g"], "f": ["h"], "g": [], "h": ["barrier"], "loop": ["loop", "h"], "alone": ["g"]}
    assert cfg.reaching(calls, {"barrier"}) == {"h", "f", "k", "loop"}
    assert cfg.reaching(calls, set()) == set()
    assert cfg.reaching({"a": ["a"]}, {"a"}) == {"a"}
