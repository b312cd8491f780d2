"""Retrying a submission: only what may succeed unchanged, within a limit, and never reported as more than it was.

An agent loop that retries everything turns a denial into four denials and a
malformed call into four malformed calls; one that retries nothing gives up on
a scheduling service that was down for a second. The rule is the branch's own
:attr:`~botie.actions.decision.Branch.retryable`: ``unavailable`` and
``in_progress`` may succeed later with the same request id (the same
idempotency key, which the scheduler must honour for nothing to be booked
twice); everything else needs a person or the model to change something first.
Once the limit is reached, the run's tool result is no longer retryable: the
loop has given up, and the model must not be told to send it again.

The run keeps every attempt. Its :meth:`RetryRun.tool_result` is the last
decision's own result with the attempt count added: a failure stays a
failure, with its status, its reason and, for ``invalid``, the fields to
repair. Nothing here turns an error into a reassuring sentence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from botie._checks import whole_number
from botie.actions.decision import Decision
from botie.errors import SettingError

__all__ = ["RetryRun", "submit_with_retries"]


@dataclass(frozen=True)
class RetryRun:
    """Every attempt's decision, in order, and why the loop stopped."""

    attempts: tuple[Decision, ...]
    limit: int

    @property
    def final(self) -> Decision:
        return self.attempts[-1]

    @property
    def stopped_because(self) -> str:
        last = self.final
        if last.ok:
            return f"{last.branch}: done"
        if not last.retryable:
            return f"{last.branch} is not retryable: the same request would get the same answer"
        return f"{last.branch} after {len(self.attempts)} attempts: the limit of {self.limit} was reached"

    def tool_result(self) -> dict[str, Any]:
        """The last decision's tool result, with how many attempts it took. A failure stays a failure.

        After the limit a transient failure is reported as final: not retryable, and saying the booking is
        not confirmed, so the model tells the user rather than sending the request yet again.
        """
        result = self.final.tool_result()
        result["attempts"] = len(self.attempts)
        if self.final.retryable:  # only when the limit stopped the loop
            result["retryable"] = False
            result["message"] = (
                f"{self.final.branch} after {len(self.attempts)} attempts, the limit of {self.limit}: no job is "
                "confirmed and no more attempts will be made; tell the user the booking is not confirmed"
            )
        return result

    def explain(self) -> str:
        lines = [
            f"attempt {n}: {d.branch} ({'retryable' if d.retryable else 'not retryable'})"
            for n, d in enumerate(self.attempts, start=1)
        ]
        lines.append(f"stopped: {self.stopped_because}")
        return "\n".join(lines)


def submit_with_retries(
    send: Callable[[], Decision], *, limit: int = 3, wait: Callable[[int], None] | None = None
) -> RetryRun:
    """Call ``send`` until its decision is not retryable, or ``limit`` attempts were made.

    ``send`` submits the *same* proposal each time (the same request id: a
    fresh id per attempt would defeat the idempotency key). ``wait(n)`` is
    called before attempt ``n + 1``, for a back-off; tests and lessons pass
    nothing and do not sleep.
    """
    whole_number(limit, field="limit", least=1)
    attempts: list[Decision] = []
    while True:
        decision = send()
        if not isinstance(decision, Decision):
            raise SettingError(f"send must return a Decision, got {decision!r:.80}", field="send")
        attempts.append(decision)
        if not decision.retryable or len(attempts) == limit:
            return RetryRun(tuple(attempts), limit)
        if wait is not None:
            wait(len(attempts))
