"""A proxy request answered with an error status, raised wherever the reason is found."""

from __future__ import annotations

__all__ = ["Refusal"]


class Refusal(Exception):
    """A request answered with `status`; `outcome` labels it in the metrics, and `message`
    never holds span content."""

    def __init__(
        self,
        status: int,
        outcome: str,
        message: str,
        *,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.outcome = outcome
        self.message = message
        self.retry_after = retry_after
