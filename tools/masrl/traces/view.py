"""One well-formed trace seen as columns, whether it came as dicts or as typed structs."""

from __future__ import annotations

from functools import cache, cached_property, lru_cache
from itertools import compress, repeat
from operator import attrgetter, eq, itemgetter

import msgspec

from .decode import python_name


@cache
def _struct_getter(name: str):
    return attrgetter(python_name(name))


_dict_getter = lru_cache(maxsize=None)(itemgetter)


def _dict_field(event: dict, name: str):
    return event.get(name)


def _struct_field(event, name: str):
    value = _struct_getter(name)(event)
    return None if value is msgspec.UNSET else value


class TraceView:
    """A well-formed trace (events and edges passed the structure checks) seen as columns.

    Columns are built on first use and cached; the ``*_getter`` functions let a check stream
    a field straight from the events without building a list.
    """

    def __init__(
        self, events, edges, getter, field_of, costs, rewards, trace_id, task_id, topology
    ):
        self.events, self.edges = events, edges
        self._getter, self._field_of = getter, field_of
        self.costs = costs if isinstance(costs, dict) else {}
        self.rewards = rewards if isinstance(rewards, dict) else {}
        self.trace_id, self.task_id, self.topology = trace_id, task_id, topology

    @classmethod
    def from_dict(cls, trace: dict) -> TraceView:
        return cls(
            trace["events"],
            trace["edges"],
            _dict_getter,
            _dict_field,
            trace.get("costs"),
            trace.get("rewards"),
            trace.get("trace_id"),
            trace.get("task_id"),
            trace.get("topology"),
        )

    @classmethod
    def from_typed(cls, trace) -> TraceView:
        topology = None if trace.topology is msgspec.UNSET else trace.topology
        return cls(
            trace.events,
            trace.edges,
            _struct_getter,
            _struct_field,
            trace.costs,
            trace.rewards,
            trace.trace_id,
            trace.task_id,
            topology,
        )

    def getter(self, name: str):
        return self._getter(name)

    def _event_column(self, name: str) -> list:
        return list(map(self._getter(name), self.events))

    def _edge_column(self, name: str) -> list:
        return list(map(self._getter(name), self.edges))

    @cached_property
    def ids(self) -> list:
        return self._event_column("id")

    @cached_property
    def times(self) -> list:
        return self._event_column("t")

    @cached_property
    def types(self) -> list:
        return self._event_column("type")

    @cached_property
    def agents(self) -> list:
        return self._event_column("agent")

    @cached_property
    def sources(self) -> list:
        return self._edge_column("src")

    @cached_property
    def targets(self) -> list:
        return self._edge_column("dst")

    @cached_property
    def edge_types(self) -> list:
        return self._edge_column("type")

    @cached_property
    def time_of(self) -> dict:
        """Event id -> t (fewer entries than events when ids repeat)."""
        return dict(zip(map(self._getter("id"), self.events), map(self._getter("t"), self.events)))

    def event_field(self, index: int, name: str):
        """One optional field of one event, None when absent."""
        return self._field_of(self.events[index], name)

    def fields_at(self, indices: list[int], name: str) -> list:
        """One optional field of the given events, None where absent."""
        chosen = map(self.events.__getitem__, indices)
        if self._field_of is _dict_field:
            return list(map(dict.get, chosen, repeat(name)))
        values = list(map(self._getter(name), chosen))
        return (
            [None if value is msgspec.UNSET else value for value in values]
            if msgspec.UNSET in values
            else values
        )

    def column(self, name: str) -> list:
        """One optional field of every event, None where absent."""
        if self._field_of is _dict_field:
            return list(map(dict.get, self.events, repeat(name)))
        values = self._event_column(name)
        return (
            [None if value is msgspec.UNSET else value for value in values]
            if msgspec.UNSET in values
            else values
        )

    @cached_property
    def durations(self) -> list:
        """duration_s of every event, None where not given."""
        return self.column("duration_s")

    def indices_of_type(self, event_type: str) -> list[int]:
        return list(compress(range(len(self.events)), map(eq, self.types, repeat(event_type))))

    def stop_decisions(self) -> list[int]:
        """Indices of the events whose decision is stop, in list order."""
        if self._field_of is _dict_field:
            decisions = map(dict.get, self.events, repeat("decision"))
        else:  # absent fields read as UNSET, which is not "stop" either
            decisions = map(self._getter("decision"), self.events)
        return list(compress(range(len(self.events)), map(eq, decisions, repeat("stop"))))
