"""The token window of one model request, split into reserves and evidence."""

from __future__ import annotations

from dataclasses import dataclass

from botie._checks import whole_number
from botie.errors import BudgetError

__all__ = ["Budget"]


@dataclass(frozen=True, slots=True)
class Budget:
    """A request window: ``total`` tokens, of which reserves are set aside first.

    ``input_reserve`` covers everything that is not evidence (instructions, the
    question, tool schemas, conversation); ``output_reserve`` the reply. What
    remains is :attr:`evidence`. The markup around each document (its
    ``<document id=... asset=... version=...>`` tags) is sent with it, so it is evidence
    too: count each document as rendered, not by its text alone. Reserves
    larger than the total are an error, never a silent zero: a request that
    cannot fit should not claim it does.
    """

    total: int
    input_reserve: int
    output_reserve: int

    def __post_init__(self) -> None:
        for name in ("total", "input_reserve", "output_reserve"):
            whole_number(getattr(self, name), field=name, what="a whole number of tokens", error=BudgetError)
        reserved = self.input_reserve + self.output_reserve
        if reserved > self.total:
            raise BudgetError(
                f"the reserves ({self.input_reserve} input + {self.output_reserve} output = {reserved}) "
                f"exceed the total of {self.total} by {reserved - self.total} "
                f"token{'s' if reserved - self.total != 1 else ''}",
                field="input_reserve",
            )

    @property
    def evidence(self) -> int:
        """Tokens left for evidence: total minus both reserves."""
        return self.total - self.input_reserve - self.output_reserve

    def evidence_after(self, fixed: int) -> int:
        """Tokens left for documents once ``fixed`` tokens (the request without documents, as counted) are sent.

        The reserve is a guess made in advance; ``fixed`` is the count. When the
        count is larger, the documents get less, so the request as built stays
        within :attr:`total` with the output reserve kept; when it is smaller,
        they still get no more than :attr:`evidence`.
        """
        whole_number(fixed, field="fixed", what="a whole number of tokens", error=BudgetError)
        return max(0, min(self.evidence, self.total - self.output_reserve - fixed))

    def explain(self) -> str:
        """The arithmetic, as a learner would write it."""
        return f"{self.total} − {self.input_reserve} − {self.output_reserve} = {self.evidence}"
