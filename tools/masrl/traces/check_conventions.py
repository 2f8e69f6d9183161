"""Warnings, not errors: counts in ``costs`` that disagree with the events, reward channels
outside the vocabulary, stop decisions without a reason."""

from __future__ import annotations

from ..text import mistyped_hint
from .problems import ProblemCollector, json_number, key_path
from .schema import reward_channel_bases, trace_vocabulary
from .view import TraceView

VOCABULARY = trace_vocabulary()


def warn_on_counts(view: TraceView, out: ProblemCollector) -> None:
    for field_name, event_type in (("messages", "message"), ("tool_calls", "tool_call")):
        recorded = view.costs.get(field_name)
        if isinstance(recorded, (int, float)) and not isinstance(recorded, bool):
            counted = view.types.count(event_type)
            if recorded != counted:
                out.warning(
                    f"costs.{field_name}",
                    f"is {json_number(recorded)} but the trace has {counted} {event_type} event(s)",
                    "count_mismatch",
                    f"record every {event_type} as an event, or correct costs.{field_name}",
                )


def warn_on_reward_names(rewards: dict, out: ProblemCollector) -> None:
    for name in map(str, rewards):
        if not VOCABULARY.reward_channel_pattern.search(name):
            suggestion = mistyped_hint(name.split(":", 1)[0], reward_channel_bases())
            hint = (
                suggestion + " " if suggestion else ""
            ) + "name channels by credit unit or reward family, e.g. team, R7, agent:<name>"
            out.warning(
                key_path("rewards", name),
                f"reward channel {name!r} is not a credit unit or reward family",
                "reward_channel",
                hint,
            )


def warn_on_stops(view: TraceView, out: ProblemCollector) -> None:
    for index in view.stop_decisions():
        if not view.event_field(index, "reason"):
            out.warning(
                f"events[{index}].reason",
                "stop decision without a reason",
                "stop_without_reason",
                "say why the run stopped, e.g. solved, consensus, budget, max_rounds",
            )
