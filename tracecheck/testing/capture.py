"""Which test a span belongs to, when instrumentation is set up once for the whole process.

Instrumentors take their tracer once (at `instrument()` time, from the global API or from the
provider they are given), so one provider has to serve every test: the capture is a span
processor attached to it, and each span goes to the test whose context started it.

- The test's context: a context variable set for the duration of the test. asyncio tasks copy
  it; threads started during the test and work submitted to a `ThreadPoolExecutor` during the
  test carry it too (`Thread.start` and `ThreadPoolExecutor.submit` are wrapped while a capture
  is active, as OpenTelemetry's threading instrumentation does for its own context).
- A span started where no test's context is found belongs to the test of its parent span, if
  that test is still running (a context propagated by OpenTelemetry into a pool made earlier).
- Anything else belongs to no test: spans a test did not emit are never attributed to it, and a
  span that ends after its test did is dropped.

Imported only when a test uses the `trace_spans` fixture (it imports the OpenTelemetry SDK).
"""

from __future__ import annotations

import contextvars
import functools
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from opentelemetry import trace as api
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace import Span as SdkSpan
from opentelemetry.sdk.trace.sampling import ALWAYS_ON

__all__ = ["CaptureHub", "TestSpans", "current_test"]

_UNSET: Any = object()
_CURRENT: contextvars.ContextVar[TestSpans | None] = contextvars.ContextVar("tracecheck_test")
_THREAD_TEST = "_tracecheck_test_spans"
# Samplers that record every span a test starts (the SDK's default is the second).
_RECORDS_ALL = ("AlwaysOnSampler", "ParentBased{root:AlwaysOnSampler,")


class TestSpans:
    """The spans of one test, in the order they ended; closed when the test ends."""

    __test__ = False  # not a test class, whatever pytest's collection patterns say

    def __init__(self, node_id: str) -> None:
        self.node_id = node_id
        self.notes: list[str] = []  # what the capture itself knows it missed
        self._spans: list[ReadableSpan] = []
        self._keys: list[tuple[int, int]] = []
        self._lock = threading.Lock()
        self.open = True

    def add(self, span: ReadableSpan) -> None:
        with self._lock:
            if self.open:
                self._spans.append(span)

    def note(self, text: str) -> None:
        with self._lock:
            if text not in self.notes:
                self.notes.append(text)

    def finished(self) -> list[ReadableSpan]:
        with self._lock:
            return list(self._spans)

    def clear(self) -> None:
        with self._lock:
            self._spans.clear()


def current_test() -> TestSpans | None:
    """The capture of the test whose context this code runs in, if any."""
    found = _CURRENT.get(_UNSET)
    if found is _UNSET:
        found = getattr(threading.current_thread(), _THREAD_TEST, None)
    return found if isinstance(found, TestSpans) else None


def _key(context: api.SpanContext | None) -> tuple[int, int] | None:
    return None if context is None else (context.trace_id, context.span_id)


class _Owners:
    """Which running test each started span belongs to, by (trace id, span id)."""

    def __init__(self) -> None:
        self.by_key: dict[tuple[int, int], TestSpans] = {}
        self.lock = threading.Lock()

    def forget(self, test: TestSpans) -> None:
        with self.lock:
            for key in test._keys:
                self.by_key.pop(key, None)
            test._keys.clear()


class _ByContext(SpanProcessor):
    """Added to a shared provider: hands each span to the test whose context started it (see
    the module's docstring). `sampling` says why the provider may drop spans, if it may."""

    def __init__(self, owners: _Owners, sampling: str | None = None) -> None:
        self._owners = owners
        self.sampling = sampling

    def on_start(self, span: SdkSpan, parent_context: Context | None = None) -> None:
        try:
            owner = current_test()
            owners = self._owners
            with owners.lock:
                if owner is None and (parent := _key(span.parent)) is not None:
                    owner = owners.by_key.get(parent)
                key = _key(span.context)
                if owner is None or not owner.open or key is None:
                    return
                owners.by_key[key] = owner
                owner._keys.append(key)
            if self.sampling is not None:
                owner.note(self.sampling)
        except Exception:  # a capture never raises into the application
            return

    def on_end(self, span: ReadableSpan) -> None:
        key = _key(span.context)
        owner = self._owners.by_key.get(key) if key is not None else None
        if owner is not None:
            owner.add(span)

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


class _OneTest(SpanProcessor):
    """The processor of a test's own provider (`trace_spans.provider`): all its spans are that
    test's. After the test, a span through it tells the running test where its spans went."""

    def __init__(self, test: TestSpans) -> None:
        self._test = test

    def on_start(self, span: SdkSpan, parent_context: Context | None = None) -> None:
        if self._test.open:
            return
        running = current_test()
        if running is not None and running is not self._test:
            running.note(
                f"spans of this test went to the provider of {self._test.node_id}, which ended "
                "with that test: something kept trace_spans.provider from an earlier test "
                "(an instrumentor instrumented once with it); instrument once with the global "
                "provider instead"
            )

    def on_end(self, span: ReadableSpan) -> None:
        self._test.add(span)

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


class CaptureHub:
    """One per pytest session: the session provider, the providers attached to, the wraps."""

    def __init__(self) -> None:
        self._owners = _Owners()
        self.provider = TracerProvider(sampler=ALWAYS_ON)
        self.provider.add_span_processor(_ByContext(self._owners))
        self._attached: dict[int, tuple[weakref.ReferenceType[Any] | Any, _ByContext]] = {}
        self.installed_global = False
        self._unwrap = _wrap_threads()

    def test_provider(self, test: TestSpans) -> TracerProvider:
        """A provider of the test's own, for code that is handed one."""
        provider = TracerProvider(sampler=ALWAYS_ON)
        provider.add_span_processor(_OneTest(test))
        return provider

    def begin(self, node_id: str) -> tuple[TestSpans, contextvars.Token[TestSpans | None]]:
        test = TestSpans(node_id)
        return test, _CURRENT.set(test)

    def end(self, test: TestSpans, token: contextvars.Token[TestSpans | None]) -> None:
        test.open = False
        try:
            _CURRENT.reset(token)
        except ValueError:  # reset from another context: leave no test current here
            _CURRENT.set(None)
        self._owners.forget(test)

    def attach(self, provider: Any) -> None:
        """Capture through an SDK `provider` from now on; it is never replaced or shut down,
        and a provider that takes no span processor is left alone."""
        if provider is self.provider or not callable(getattr(provider, "add_span_processor", None)):
            return
        entry = self._attached.get(id(provider))
        if entry is not None and _alive(entry[0]) is provider:
            return
        processor = _ByContext(self._owners, _sampling_problem(provider))
        provider.add_span_processor(processor)
        try:
            held: Any = weakref.ref(provider)
        except TypeError:
            held = provider
        self._attached[id(provider)] = (held, processor)

    def sampling_problem(self, provider: Any) -> str | None:
        """Why spans of an attached `provider` may never reach the capture, if they may."""
        entry = self._attached.get(id(provider))
        if entry is None or _alive(entry[0]) is not provider:
            return None
        return entry[1].sampling

    def global_provider(self) -> Any:
        return api.get_tracer_provider()

    def install_global(self) -> str | None:
        """Make the session provider the global one if none is set; attach to an SDK one.
        Why neither can be done, or None."""
        found = api.get_tracer_provider()
        if callable(getattr(found, "add_span_processor", None)):
            self.attach(found)
            return None
        if isinstance(found, api.ProxyTracerProvider):
            api.set_tracer_provider(self.provider)
            self.installed_global = api.get_tracer_provider() is self.provider
            return None
        return (
            f"the global tracer provider is a {type(found).__module__}.{type(found).__qualname__},"
            " which takes no span processor"
        )

    def close(self) -> None:
        """Undo the wraps and, when this hub installed the global provider, unset it (where
        opentelemetry-api's private globals allow) so that another session starts clean."""
        self._unwrap()
        if self.installed_global and api.get_tracer_provider() is self.provider:
            _unset_global()


def _alive(held: Any) -> Any:
    return held() if isinstance(held, weakref.ReferenceType) else held


def _sampling_problem(provider: Any) -> str | None:
    sampler = getattr(provider, "sampler", None)
    if sampler is None:
        return None
    try:
        description = str(sampler.get_description())
    except Exception:
        description = type(sampler).__name__
    if description.startswith(_RECORDS_ALL):
        return None
    return (
        f"the tracer provider samples spans ({description}): a span it drops never reaches the "
        "capture; set OTEL_TRACES_SAMPLER=always_on for the tests"
    )


def _unset_global() -> None:
    from opentelemetry.util._once import Once

    if hasattr(api, "_TRACER_PROVIDER") and hasattr(api, "_TRACER_PROVIDER_SET_ONCE"):
        api._TRACER_PROVIDER = None
        api._TRACER_PROVIDER_SET_ONCE = Once()


def _wrap_threads() -> Callable[[], None]:
    """Carry the test's context into threads and pool work started during it; the function
    returned undoes both wraps (unless someone wrapped them again since)."""
    start = threading.Thread.start
    submit: Callable[..., Future[Any]] = ThreadPoolExecutor.submit

    @functools.wraps(start)
    def traced_start(self: threading.Thread) -> None:
        test = current_test()
        if test is not None:
            setattr(self, _THREAD_TEST, test)
        start(self)

    @functools.wraps(submit)
    def traced_submit(
        self: ThreadPoolExecutor, fn: Callable[..., Any], /, *args: Any, **kwargs: Any
    ) -> Future[Any]:
        test = current_test()

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            token = _CURRENT.set(test)  # None too: a worker started by a test is not this work's
            try:
                return fn(*args, **kwargs)
            finally:
                _CURRENT.reset(token)

        return submit(self, run, *args, **kwargs)

    threading.Thread.start = traced_start  # type: ignore[method-assign]
    ThreadPoolExecutor.submit = traced_submit  # type: ignore[method-assign, assignment]

    def unwrap() -> None:
        if threading.Thread.start is traced_start:
            threading.Thread.start = start  # type: ignore[method-assign]
        if ThreadPoolExecutor.submit is traced_submit:
            ThreadPoolExecutor.submit = submit  # type: ignore[method-assign]

    return unwrap
