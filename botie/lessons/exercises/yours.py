"""Your function beside the reference: what a panel shows when a learner plugs in their exercise answer.

In lessons 01, 02 and 05 a panel can take the learner's exercise function
(``selection_panel(scene, yours=choose_evidence)``). On every change the panel
asks this module to call that function on the panel's current inputs and to
compare the answer with the reference. The result is a frozen
:class:`Comparison`; the panel only draws it.

The learner's function is called on fresh copies of the inputs, so it cannot
change what the panel holds. Whatever it raises becomes a one-line message
(the exception's type and text, never a traceback). A function that still
raises ``NotImplementedError`` or returns ``None`` (the learner edition's
stub) is "not written yet", not an error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from botie._enum import ShortName
from botie.lessons.exercises.engine import call_learner, record_ids, show

__all__ = ["Agreement", "Comparison", "compare_branch", "compare_selection", "compare_shortlist"]


class Agreement(ShortName):
    SAME = "same"
    DIFFERS = "differs"
    NOT_WRITTEN = "not written yet"
    RAISED = "raised"
    NOT_ASKED = "not asked"


@dataclass(frozen=True)
class Comparison:
    """The learner's answer beside the reference, and where they part."""

    agreement: Agreement
    reference: str  # the reference answer, as the panel shows it
    yours: str = ""  # the learner's answer, as the panel shows it ("" when there is none)
    differences: tuple[str, ...] = ()  # one plain sentence per difference
    message: str = ""  # why there is no answer to compare (not written, raised, not asked)

    def line(self) -> str:
        """One sentence for the panel and its live region; it says in words what any colour repeats."""
        if self.agreement is Agreement.SAME:
            return "Your function: same as the reference."
        if self.agreement is Agreement.DIFFERS:
            return "Your function differs: " + "; ".join(self.differences) + "."
        if self.agreement is Agreement.RAISED:
            return f"Your function raised an error: {self.message}"
        return f"Your function: {self.agreement}. {self.message}"


_NOT_WRITTEN = (
    "It still raises NotImplementedError or returns None: write its body, run its cell, then build the panel again."
)


def _call(
    fn: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any], reference: str
) -> tuple[Any, Comparison | None]:
    """Call the learner's function (on copies); an exception or a stub ends the comparison early."""
    call = call_learner(fn, *args, **kwargs)
    if call.not_written or (call.error is None and call.value is None):
        return None, Comparison(Agreement.NOT_WRITTEN, reference, message=_NOT_WRITTEN)
    if call.error is not None:
        return None, Comparison(Agreement.RAISED, reference, message=call.message)
    return call.value, None


def _id_differences(yours: list[str], reference: list[str]) -> tuple[str, ...]:
    only_yours = [i for i in yours if i not in reference]
    only_reference = [i for i in reference if i not in yours]
    differences = []
    if only_yours:
        differences.append("only yours keeps " + ", ".join(only_yours))
    if only_reference:
        differences.append("only the reference keeps " + ", ".join(only_reference))
    if not differences and yours != reference:
        # Same ids, yet not the same list: either a repeat or another order.
        repeat = len(set(yours)) < len(yours)
        differences.append("yours lists a record twice" if repeat else "the same records in a different order")
    return tuple(differences)


def _compare_ids(fn: Callable[..., Any], args: Sequence[Any], reference: Sequence[str]) -> Comparison:
    expected = list(reference)
    shown = ", ".join(expected) or "nothing"
    got, early = _call(fn, args, {}, shown)
    if early is not None:
        return early
    ids, problem = record_ids(got, "your list")
    if ids is None:
        return Comparison(Agreement.DIFFERS, shown, show(got), (str(problem),))
    differences = _id_differences(ids, expected)
    agreement = Agreement.DIFFERS if differences else Agreement.SAME
    return Comparison(agreement, shown, ", ".join(ids) or "nothing", differences)


def compare_selection(
    fn: Callable[..., Any], records: Sequence[Any], allowed_assets: Sequence[str], allowance: int
) -> Comparison:
    """Lesson 01: ``choose_evidence(records, allowed_assets, allowance)`` against ``select`` with the prefix rule."""
    from botie.context.selection import select

    reference = select(records, list(allowed_assets), allowance, policy="prefix").selected_ids
    return _compare_ids(fn, (list(records), list(allowed_assets), allowance), reference)


def compare_shortlist(
    fn: Callable[..., Any],
    candidates: Sequence[Any],
    allowed_assets: Sequence[str],
    observed_on: Any,
    k: int,
    register: Any,
) -> Comparison:
    """Lesson 02: ``shortlist(candidates, allowed_assets, observed_on, k, register)`` against the reference."""
    from botie.lessons.exercises.lesson02a import reference_shortlist

    reference = reference_shortlist(list(candidates), list(allowed_assets), observed_on, k, register)
    return _compare_ids(fn, (list(candidates), list(allowed_assets), observed_on, k, register), reference)


def compare_branch(
    fn: Callable[..., Any],
    proposal: Mapping[str, Any],
    *,
    caller: str,
    allowed_assets: Sequence[str],
    approval: Any,
    previous: Any,
) -> Comparison:
    """Lesson 05a: ``choose_branch(proposal, *, caller, allowed_assets, approval, previous)`` against ``decide``."""
    from botie.actions.decision import decide

    kwargs = {"caller": caller, "allowed_assets": list(allowed_assets), "approval": approval, "previous": previous}
    reference = str(decide(dict(proposal), **kwargs).branch)
    if reference == "invalid":
        # The exercise starts after validation: an invalid proposal never reaches choose_branch.
        return Comparison(
            Agreement.NOT_ASKED,
            reference,
            message="The proposal is invalid, and choose_branch is only asked about proposals that passed validation.",
        )
    got, early = _call(fn, (dict(proposal),), kwargs, reference)
    if early is not None:
        return early
    if not isinstance(got, str):
        return Comparison(
            Agreement.DIFFERS,
            reference,
            show(got),
            (f"yours returned {show(got)}, not a branch name such as {reference!r}",),
        )
    if str(got) == reference:
        return Comparison(Agreement.SAME, reference, str(got))
    return Comparison(Agreement.DIFFERS, reference, str(got), (f"yours says {got}, the reference says {reference}",))
