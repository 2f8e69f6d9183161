"""Graph algorithms over integer-indexed edges, shared by the validator and the metrics."""

from __future__ import annotations

from collections import Counter


def compressed_adjacency(
    node_count: int, keys: list[int], values: list[int]
) -> tuple[list[int], list[int]]:
    """For edges keys[i] -> values[i]: the neighbours of node v are neighbours[offsets[v]:offsets[v + 1]].

    Two flat integer lists instead of a list per node keep a million-event graph small.
    """
    offsets = [0] * (node_count + 1)
    for node, count in Counter(keys).items():
        offsets[node + 1] = count
    for node in range(node_count):
        offsets[node + 1] += offsets[node]
    neighbours = [0] * len(keys)
    cursor = offsets[:-1]
    for key, value in zip(keys, values):
        neighbours[cursor[key]] = value
        cursor[key] += 1
    return offsets, neighbours


def topological_order(node_count: int, sources: list[int], targets: list[int]) -> list[int]:
    """Kahn's algorithm over integer-indexed edges; ready nodes leave in index order (FIFO).

    Returns fewer than ``node_count`` nodes when there is a cycle. Iterative: no recursion limit.
    """
    indegree = [0] * node_count
    for node, count in Counter(targets).items():
        indegree[node] = count
    offsets, successors = compressed_adjacency(node_count, sources, targets)
    order = [node for node in range(node_count) if not indegree[node]]
    head = 0
    while head < len(order):
        node = order[head]
        head += 1
        for successor in successors[offsets[node] : offsets[node + 1]]:
            indegree[successor] -= 1
            if not indegree[successor]:
                order.append(successor)
    return order


def find_cycle(node_count: int, sources: list[int], targets: list[int]) -> list[int] | None:
    """One cycle as a node list (its first node repeated at the end), or None for a DAG."""
    order = topological_order(node_count, sources, targets)
    if len(order) == node_count:
        return None
    # Every node Kahn could not order has a predecessor it could not order either: walk back.
    ordered = set(order)
    predecessor: dict[int, int] = {}
    for source, target in zip(sources, targets):
        if source not in ordered and target not in ordered:
            predecessor.setdefault(target, source)
    node = min(predecessor)
    position: dict[int, int] = {}
    walk: list[int] = []
    while node not in position:
        position[node] = len(walk)
        walk.append(node)
        node = predecessor[node]
    cycle = walk[position[node] :]
    cycle.reverse()
    return [*cycle, cycle[0]]
