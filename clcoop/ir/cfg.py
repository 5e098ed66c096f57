"""Control-flow analyses as pure functions on plain data (issue 27: one home for the CFG).

A graph is `succ`: {node: [successor, ...]} in the order the terminator names them, with
every node a key (its first key is the entry, unless one is given). Nodes are anything
hashable: block names where every block is named (the native engine names them with LLVM's
instruction namer), block identities (loader.value_id) where they may not be (the
interpreter). Only `block_successors` and `block_graph` read llvmlite blocks.

The algorithms follow LLVM's own (llvm/Analysis): reverse post-order of a depth-first
search from the entry (unreachable nodes after it, in their given order); retreating edges
(back edges in a reducible graph, LoopInfo's natural loops); immediate dominators by the
iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast Dominance Algorithm",
2001), which LLVM's DomTree matches; post-dominators as dominators of the reversed graph
from a virtual exit joined to every node without successors.
"""

# ---------------------------------------------------------------------------- llvmlite blocks


def successor_blocks(block):
    """The blocks (llvmlite values) an llvmlite block's terminator may branch to, in LLVM's
    successor order (br's true target first, then false; switch's default, then its
    cases). llvmlite lists a conditional br's operands as (condition, false, true)."""
    terminator = list(block.instructions)[-1]
    targets = [o for o in terminator.operands if o.value_kind.name == "basic_block"]
    if terminator.opcode == "br" and len(targets) == 2:
        targets.reverse()
    return targets


def block_successors(block):
    """Names of the blocks an llvmlite block's terminator may branch to (successor_blocks)."""
    return [t.name for t in successor_blocks(block)]


def _name(value):
    return value.name


def block_graph(blocks, key=_name, successors=successor_blocks):
    """{key(block): [key(successor), ...]} of llvmlite blocks: by name (every block named),
    or by identity (key=loader.value_id: a block operand has its block's identity)."""
    return {key(b): [key(t) for t in successors(b)] for b in blocks}


# ---------------------------------------------------------------------------- plain graphs


def predecessors(succ):
    """{node: [predecessor, ...]}, each predecessor once, in the order of succ's nodes."""
    preds = {n: [] for n in succ}
    for n, targets in succ.items():
        for t in dict.fromkeys(targets):
            preds[t].append(n)
    return preds


def reaching(succ, targets):
    """The nodes from which a node of `targets` can be reached (a call graph's callers of a
    barrier, transitively); `targets` themselves only where they reach one."""
    preds = {}
    for n, ts in succ.items():
        for t in ts:
            preds.setdefault(t, set()).add(n)
    found, work = set(), list(targets)
    while work:
        for p in preds.get(work.pop(), ()):
            if p not in found:
                found.add(p)
                work.append(p)
    return found


def depth_first(succ, entry=None):
    """(post-order of the nodes reachable from entry, retreating edges (source, target)
    in the order the search meets them): an iterative depth-first search taking each
    node's successors in order (a node's own successor list is followed once each)."""
    entry = next(iter(succ)) if entry is None else entry
    seen, on_stack, post, retreating = {entry}, {entry}, [], []
    stack = [(entry, iter(succ[entry]))]
    while stack:
        node, it = stack[-1]
        for t in it:
            if t in on_stack:
                retreating.append((node, t))
            elif t not in seen:
                seen.add(t)
                on_stack.add(t)
                stack.append((t, iter(succ[t])))
                break
        else:
            post.append(node)
            on_stack.discard(node)
            stack.pop()
    return post, retreating


def reverse_post_order(succ, entry=None, children=None):
    """Nodes in reverse post-order from entry, then the unreachable ones in succ's order.
    `children` (default succ) is the order the search takes successors in."""
    post, _ = depth_first(children or succ, entry)
    reached = set(post)
    return post[::-1] + [n for n in succ if n not in reached]


def topological_order(succ, entry=None):
    """(reverse post-order of the nodes reachable from entry, None) for an acyclic graph,
    else (None, the first retreating edge the search meets: a loop's back edge)."""
    post, retreating = depth_first(succ, entry)
    if retreating:
        return None, retreating[0]
    return post[::-1], None


def back_edges(order, succ):
    """Edges (source, target) to a node not after the source in `order` (a reverse
    post-order: the retreating edges of its search), in the order of `order`."""
    index = {n: i for i, n in enumerate(order)}
    return [(n, t) for n in order for t in succ[n] if index[t] <= index[n]]


def natural_loops(succ, order=None):
    """{header: set of the loop's nodes} of the back edges of `order` (default: the
    reverse post-order of succ): a back edge's target is a header, its loop the nodes that
    reach the edge's source without passing the header (loops sharing a header merged)."""
    order = reverse_post_order(succ) if order is None else order
    preds = predecessors(succ)
    loops = {}
    for src, header in back_edges(order, succ):
        body, work = loops.setdefault(header, {header}), [src]
        while work:
            b = work.pop()
            if b not in body:
                body.add(b)
                work.extend(preds[b])
    return loops


def loop_nested_order(succ, entry=None):
    """A reverse post-order in which each natural loop's nodes are together, header
    first: the search takes, at a loop's header, the loop's exit targets first (they
    finish first, so they come after the loop). (clang -O2 may lay a loop out after the
    code that follows it.)"""
    children = {n: list(succ[n]) for n in succ}
    for header, body in natural_loops(succ).items():
        exits = [t for b in body for t in succ[b] if t not in body]
        children[header] = list(dict.fromkeys(exits + children[header]))
    return reverse_post_order(succ, entry, children)


def dominators(succ, entry=None):
    """{node: its immediate dominator} of the nodes reachable from entry (the entry's is
    None)."""
    entry = next(iter(succ)) if entry is None else entry
    order = reverse_post_order(succ, entry)
    post, _ = depth_first(succ, entry)
    reached = set(post)
    order = [n for n in order if n in reached]
    index = {n: i for i, n in enumerate(order)}
    preds = predecessors(succ)
    idom = {entry: entry}

    def intersect(a, b):
        while a != b:
            while index[a] > index[b]:
                a = idom[a]
            while index[b] > index[a]:
                b = idom[b]
        return a

    changed = True
    while changed:
        changed = False
        for n in order[1:]:
            done = [p for p in preds[n] if p in idom]
            new = done[0]
            for p in done[1:]:
                new = intersect(p, new)
            if idom.get(n) != new:
                idom[n] = new
                changed = True
    idom[entry] = None
    return idom


def post_dominators(succ):
    """{node: its immediate post-dominator} (None: the virtual exit, reached from every
    node without successors); nodes that reach no exit (an endless loop) are left out."""
    exit_ = object()
    reverse = {exit_: [n for n in succ if not succ[n]]}
    for n in succ:
        reverse[n] = []
    for n, targets in succ.items():
        for t in dict.fromkeys(targets):
            reverse[t].append(n)
    idom = dominators(reverse, exit_)
    return {n: (None if d is exit_ else d) for n, d in idom.items() if n is not exit_}


def dominates(idom, a, b):
    """Whether a dominates b in the tree `idom` (dominators or post_dominators)."""
    while b is not None:
        if b == a:
            return True
        b = idom.get(b)
    return False


# ---------------------------------------------------------------------------- regions


def region_join(order, succ, back, start):
    """The index in `order` (a loop-nested reverse post-order) of the join of the region
    entered by node order[start]'s terminator, or None: the smallest j > start such that
    every edge from [start, j) goes forward to at most j, or back to a loop header inside
    (start, j) whose back edges all come from inside; `back` are order's back edges as
    (source index, header index)."""
    index = {n: i for i, n in enumerate(order)}
    hi, k = start, start
    while True:
        for t in succ[order[k]]:
            ti = index[t]
            if ti <= k:
                if ti <= start:
                    return None        # leaves the region backwards (an outer loop)
                continue
            hi = max([hi, ti] + [src + 1 for src, h in back if h == ti])
        k += 1
        if k >= hi:
            break
    return hi if start < hi < len(order) else None


def entered_only_from(order, preds, start, join):
    """Whether the nodes order[start + 1 .. join] are entered only from order[start:join]."""
    inside = set(order[start:join])
    return all(set(preds[order[k]]) <= inside for k in range(start + 1, join + 1))
