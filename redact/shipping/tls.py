"""TLS towards the upstream: which certificate authorities the proxy trusts, the client
certificate it presents (mutual TLS), or no verification at all (for a test bench only)."""

from __future__ import annotations

import logging
import ssl
from dataclasses import dataclass

__all__ = ["UpstreamTLS", "UpstreamTLSError"]

# The logger's name predates the shipping package; operators' logging configuration names it.
log = logging.getLogger("redact.proxy")


class UpstreamTLSError(ValueError):
    """A certificate or key file that cannot be used; the message names the file, not its
    content."""


@dataclass(frozen=True, slots=True)
class UpstreamTLS:
    """`ca`: a PEM file of the authorities to trust instead of the system's; `client_cert`
    (and `client_key` when the key is not in the same file): the certificate presented to an
    upstream that asks for one; `insecure`: no verification of the upstream's certificate."""

    ca: str | None = None
    client_cert: str | None = None
    client_key: str | None = None
    insecure: bool = False

    def __post_init__(self) -> None:
        if self.client_key is not None and self.client_cert is None:
            raise UpstreamTLSError("a client key needs its client certificate")
        if self.insecure and self.ca is not None:
            raise UpstreamTLSError("a CA file and no verification exclude each other")

    @property
    def configured(self) -> bool:
        return self.ca is not None or self.client_cert is not None or self.insecure

    def context(self, *, warn: bool = True) -> ssl.SSLContext:
        """The context for the upstream client (httpx's `verify=`), logging a warning when it
        does not verify (unless `warn` is false). UpstreamTLSError when a file cannot be read
        or holds no usable certificate or key."""
        try:
            context = ssl.create_default_context(cafile=self.ca)
        except (OSError, ssl.SSLError) as exc:
            raise UpstreamTLSError(f"{self.ca}: {_why(exc)}") from None
        if self.insecure:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        if self.insecure and warn:
            log.warning(
                "the upstream's TLS certificate is not verified (--upstream-insecure): "
                "anyone between the proxy and the upstream can read the spans"
            )
        if self.client_cert is not None:
            try:
                # An encrypted key would make OpenSSL prompt on the terminal: refused instead.
                context.load_cert_chain(self.client_cert, self.client_key, password=_no_password)
            except (OSError, ssl.SSLError, _Encrypted) as exc:
                files = self.client_cert + (f", {self.client_key}" if self.client_key else "")
                why = (
                    "the key is encrypted; give it unencrypted"
                    if isinstance(exc, _Encrypted)
                    else _why(exc)
                )
                raise UpstreamTLSError(f"{files}: {why}") from None
        return context


def _why(exc: OSError | ssl.SSLError) -> str:
    if isinstance(exc, ssl.SSLError):
        return f"not a usable PEM certificate or key ({exc.reason or 'SSL error'})"
    return exc.strerror or type(exc).__name__


class _Encrypted(Exception):
    """The client key asks for a password, which the proxy has no way to ask for."""


def _no_password() -> bytes:
    raise _Encrypted
