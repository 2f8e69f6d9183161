"""The rules no schema can state, on the event graph: unique ids, agents acting only once
spawned, edges between existing events, no self-loops, ordered edges that never point back in
time, and an acyclic dependency graph.

They work on columns: a dict from event id to time, edge end times looked up with ``map``, one
comparison pass proving most edges point forward, and Kahn's algorithm (integer-indexed, no
recursion) only over the few edges that could close a cycle.
"""

from __future__ import annotations

import math
from itertools import compress, repeat
from operator import eq, lt

from ..text import mistyped_hint
from .graph import find_cycle
from .problems import ProblemCollector, json_number
from .view import TraceView

ORDERED_EDGE_TYPES = frozenset({"causal", "spawn", "message", "return"})  # never back in time
NON_DEPENDENCY_EDGE_TYPES = frozenset({"temporal"})


def report_duplicate_ids(ids: list, out: ProblemCollector) -> None:
    first_index: dict[str, int] = {}
    for index, event_id in enumerate(ids):
        if event_id in first_index:
            out.error(
                f"events[{index}].id",
                f"duplicate event id {event_id!r} (first used by events[{first_index[event_id]}])",
                "duplicate_id",
                "give every event its own id: edges refer to events by id",
            )
        else:
            first_index[event_id] = index


def check_spawns(view: TraceView, out: ProblemCollector) -> None:
    """An agent that a spawn event creates (its ``to``) acts only from its first spawn on."""
    spawn_indices = view.indices_of_type("spawn")
    if not spawn_indices:
        return
    times = view.times
    first_spawn: dict[str, int] = {}
    for index, target in zip(spawn_indices, view.fields_at(spawn_indices, "to")):
        if target is None:
            out.warning(
                f"events[{index}]",
                "spawn event does not say which agent it creates",
                "spawn_without_target",
                "set to to the new agent's name",
            )
            continue
        best = first_spawn.get(target)
        if best is None or times[index] < times[best]:
            first_spawn[target] = index
    spawn_time = {agent: times[index] for agent, index in first_spawn.items()}
    # One pass in C: does any event come before its agent's first spawn? (-inf: never spawned)
    thresholds = map(spawn_time.get, view.agents, repeat(-math.inf))
    if not any(map(lt, times, thresholds)):
        return
    earliest: dict[str, int] = {}  # each offending agent's earliest event
    for index, agent in enumerate(view.agents):
        too_early = agent in spawn_time and times[index] < spawn_time[agent]
        if too_early and (agent not in earliest or times[index] < times[earliest[agent]]):
            earliest[agent] = index
    for agent in sorted(earliest):
        act_index, spawn_index = earliest[agent], first_spawn[agent]
        out.error(
            f"events[{act_index}].t",
            f"agent {agent!r} acts at t={json_number(times[act_index])} before it is spawned "
            f"at t={json_number(times[spawn_index])} (events[{spawn_index}])",
            "acts_before_spawn",
            "fix the timestamps, or drop the spawn if the agent exists from the start",
        )


def _report_cycle(edge_indices: list[int], view: TraceView, out: ProblemCollector) -> None:
    """Look for a cycle among the given dependency edges; report the first found."""
    local_index: dict[str, int] = {}
    sources: list[int] = []
    targets: list[int] = []
    for k in edge_indices:
        sources.append(local_index.setdefault(view.sources[k], len(local_index)))
        targets.append(local_index.setdefault(view.targets[k], len(local_index)))
    cycle = find_cycle(len(local_index), sources, targets)
    if cycle is None:
        return
    id_of = {index: event_id for event_id, index in local_index.items()}
    position = {event_id: view.ids.index(event_id) for event_id in map(id_of.get, cycle)}
    cycle_ids = [id_of[node] for node in cycle[:-1]]
    # Start the cycle at its earliest listed event, so the report does not depend on hashing.
    first = min(range(len(cycle_ids)), key=lambda k: position[cycle_ids[k]])
    cycle_ids = cycle_ids[first:] + cycle_ids[:first] + [cycle_ids[first]]
    out.error(
        f"events[{position[cycle_ids[0]]}]",
        "the dependency graph (every edge but temporal) has a cycle: " + " -> ".join(cycle_ids),
        "cycle",
        "an event cannot depend on itself, even indirectly: drop or retype one of these edges",
    )


def _all_edges_point_forward(view: TraceView) -> bool:
    """One fused pass in C: every edge joins existing events and t[src] < t[dst] strictly.

    That alone rules out dangling ends, self-loops, backward edges and cycles."""
    time_of = view.time_of
    source_times = map(time_of.get, map(view.getter("src"), view.edges))
    target_times = map(time_of.get, map(view.getter("dst"), view.edges))
    try:
        return all(map(lt, source_times, target_times))
    except TypeError:  # None: an edge end names no event
        return False


def check_graph(view: TraceView, out: ProblemCollector) -> None:
    if _all_edges_point_forward(view):
        return
    sources, targets, types = view.sources, view.targets, view.edge_types
    source_times = list(map(view.time_of.get, sources))
    target_times = list(map(view.time_of.get, targets))
    edge_count = len(sources)
    usable = [True] * edge_count
    if None in source_times or None in target_times:
        small = len(view.events) <= 2_000  # did-you-mean over a huge id list would be slow
        for k in range(edge_count):
            for end, event_id, end_time in (
                ("src", sources[k], source_times[k]),
                ("dst", targets[k], target_times[k]),
            ):
                if end_time is None:
                    usable[k] = False
                    out.error(
                        f"edges[{k}].{end}",
                        f"no event has id {event_id!r}",
                        "dangling_edge",
                        mistyped_hint(event_id, view.ids) if small else "",
                    )
    for k in compress(range(edge_count), map(eq, sources, targets)):
        usable[k] = False
        out.error(
            f"edges[{k}]",
            f"edge joins event {sources[k]!r} to itself",
            "self_loop",
            "drop it: a dependency on oneself means nothing",
        )
    goes_back_in_time = False
    for k in compress(range(edge_count), usable):
        if source_times[k] > target_times[k]:
            message = (
                f"{types[k]} edge points back in time: {sources[k]!r} at t={json_number(source_times[k])} -> "
                f"{targets[k]!r} at t={json_number(target_times[k])}"
            )
            if types[k] in ORDERED_EDGE_TYPES:
                out.error(
                    f"edges[{k}]",
                    message,
                    "backwards_edge",
                    "swap src and dst, or fix the events' t",
                )
            else:
                out.warning(f"edges[{k}]", message, "backwards_edge")
            goes_back_in_time = goes_back_in_time or types[k] not in NON_DEPENDENCY_EDGE_TYPES
    # A cycle needs a dependency edge back in time, or else a loop of same-time edges: look there only.
    candidates = [
        k
        for k in compress(range(edge_count), usable)
        if types[k] not in NON_DEPENDENCY_EDGE_TYPES
        and (goes_back_in_time or source_times[k] == target_times[k])
    ]
    if candidates:
        _report_cycle(candidates, view, out)
