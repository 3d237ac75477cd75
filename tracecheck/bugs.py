"""How a bug is named to the user: by its type only, for its message may quote span content,
which may be secret. Imports nothing, so that the command line's start-up pays nothing for it."""

__all__ = ["internal_error"]


def internal_error(exc: BaseException) -> str:
    return f"internal error: {type(exc).__name__}"
