"""Capture under process-wide instrumentation, through `pytester`: instrumentation set up once
(a proxy tracer taken at import, before any test), an app that installs its own SDK provider,
a private provider, and spans of one test never landing in another's (threads, thread pools,
asyncio tasks, pytest-xdist workers).

Runs that install a global provider go to a subprocess: the global provider can be set once per
process, and this process is shared by every in-process pytester run.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry import trace

pytest_plugins = ["pytester"]

# Instrumentation set up once, at import: the tracer is taken from the global API before any
# provider exists (a proxy), as instrumentors do at `instrument()` time.
INSTRUMENTED = """
import threading
from opentelemetry import trace

TRACER = trace.get_tracer("fake.instrumentation")


def emit(name):
    with TRACER.start_as_current_span(name):
        pass
"""

# An app that installs its own SDK provider at start-up and exports its spans itself.
APP = """
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

TRACER = trace.get_tracer("fake.instrumentation")  # taken before the app's provider is set
APP_EXPORTER = InMemorySpanExporter()
APP_PROVIDER = TracerProvider({sampler})
APP_PROVIDER.add_span_processor(SimpleSpanProcessor(APP_EXPORTER))
trace.set_tracer_provider(APP_PROVIDER)


def emit(name):
    with TRACER.start_as_current_span(name):
        pass
"""

ONE_SPAN = (
    '{"name": "one-span", "rules": [{"kind": "eventually", "label": "work", '
    '"p": {"name": "work"}}]}'
)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider --strict-markers\n")
    pytester.makefile(".json", one_span=ONE_SPAN)
    return pytester


def test_a_proxy_tracer_taken_before_the_first_test_records_into_every_test(
    project: pytest.Pytester,
) -> None:
    project.makeconftest(INSTRUMENTED)
    project.makepyfile(
        """
        import pytest
        from conftest import emit

        pytestmark = pytest.mark.trace_spans(global_provider=True)

        @pytest.mark.parametrize("n", range(3))
        def test_each(trace_spans, n):
            emit(f"span {n}")
            assert [s.name for s in trace_spans.spans()] == [f"span {n}"]

        @pytest.mark.trace_contract("one_span.json")
        def test_marker():
            emit("work")
        """
    )
    result = project.runpytest_subprocess()
    result.assert_outcomes(passed=4)
    assert "already shutdown" not in result.stdout.str() + result.stderr.str()


def test_the_ini_option_installs_the_provider_for_every_test(project: pytest.Pytester) -> None:
    project.makeini(
        "[pytest]\naddopts = -p no:cacheprovider --strict-markers\n"
        "tracecheck_global_provider = true\n"
    )
    project.makeconftest(INSTRUMENTED)
    project.makepyfile(
        """
        import pytest
        from opentelemetry import trace
        from conftest import emit

        @pytest.mark.trace_contract("one_span.json")
        def test_first():
            emit("work")

        @pytest.mark.trace_contract("one_span.json")
        def test_second():
            emit("work")

        def test_the_global_provider_stays_for_the_session(trace_spans):
            provider = trace.get_tracer_provider()
            assert type(provider).__module__ == "opentelemetry.sdk.trace"
            assert provider is not trace_spans.provider
        """
    )
    project.runpytest_subprocess().assert_outcomes(passed=3)


def test_an_app_owned_sdk_provider_is_attached_to_never_replaced(
    project: pytest.Pytester,
) -> None:
    project.makeconftest(APP.format(sampler=""))
    project.makepyfile(
        """
        import pytest
        from opentelemetry import trace
        from conftest import APP_EXPORTER, APP_PROVIDER, emit

        @pytest.mark.trace_contract("one_span.json")
        def test_automatic():
            emit("work")

        @pytest.mark.trace_spans(global_provider=True)
        def test_opted_in(trace_spans):
            emit("opted in")
            assert trace.get_tracer_provider() is APP_PROVIDER
            assert [s.name for s in trace_spans.spans()] == ["opted in"]

        def test_between_tests():
            emit("outside any capture")

        def test_isolated(trace_spans):
            emit("mine")
            assert [s.name for s in trace_spans.spans()] == ["mine"]

        def test_the_app_provider_still_exports_everything():
            emit("after")
            assert trace.get_tracer_provider() is APP_PROVIDER
            assert [s.name for s in APP_EXPORTER.get_finished_spans()] == [
                "work", "opted in", "outside any capture", "mine", "after"
            ]
        """
    )
    result = project.runpytest_subprocess()
    result.assert_outcomes(passed=5)
    assert "already shutdown" not in result.stdout.str() + result.stderr.str()


def test_a_sampling_provider_makes_the_check_inconclusive(project: pytest.Pytester) -> None:
    project.makeconftest(
        APP.format(sampler="sampler=DropNamed()").replace(
            "from opentelemetry.sdk.trace import TracerProvider\n",
            "from opentelemetry.sdk.trace import TracerProvider\n"
            "from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON, Sampler\n\n\n"
            "class DropNamed(Sampler):\n"
            "    def should_sample(self, context, trace_id, name, *args, **kwargs):\n"
            "        return (ALWAYS_OFF if name == 'dropped' else ALWAYS_ON).should_sample(\n"
            "            context, trace_id, name, *args, **kwargs)\n\n"
            "    def get_description(self):\n"
            "        return 'DropNamed'\n\n\n",
        )
    )
    project.makepyfile(
        """
        import pytest
        from conftest import emit

        @pytest.mark.trace_contract("one_span.json")
        def test_partly_sampled():
            emit("work")
            emit("dropped")

        @pytest.mark.trace_contract("one_span.json")
        def test_all_dropped():
            emit("dropped")
        """
    )
    result = project.runpytest_subprocess()
    result.assert_outcomes(failed=2)
    sampling = (
        "the tracer provider samples spans (DropNamed): a span it drops never reaches the "
        "capture; set OTEL_TRACES_SAMPLER=always_on for the tests"
    )
    result.stdout.fnmatch_lines(
        [
            "*_ test_partly_sampled _*",
            'trace contract "one-span" could not be checked: the capture is incomplete',
            f"  note: {sampling}",
            "hint: *",
            "*_ test_all_dropped _*",
            f'trace contract "one-span" could not be checked: no spans were captured; {sampling}',
        ]
    )


def test_spans_stay_with_the_test_that_emitted_them(project: pytest.Pytester) -> None:
    project.makeconftest(
        INSTRUMENTED
        + """
import queue
from concurrent.futures import ThreadPoolExecutor

# Started at import, before any test: what they emit is no test's.
EARLY_GO, EARLY_DONE = threading.Event(), threading.Event()
WORKER = queue.Queue()  # jobs for a long-lived worker thread


def _early():
    EARLY_GO.wait()
    emit("early thread")
    EARLY_DONE.set()


threading.Thread(target=_early, daemon=True).start()
threading.Thread(target=lambda: [job() for job in iter(WORKER.get, None)], daemon=True).start()
POOL = ThreadPoolExecutor(1)  # its worker thread is started by whichever test submits first
LATE_GO, LATE_DONE = threading.Event(), threading.Event()
"""
    )
    project.makepyfile(
        """
        import asyncio
        import threading
        from concurrent.futures import ThreadPoolExecutor
        import pytest
        from opentelemetry import context
        from conftest import EARLY_DONE, EARLY_GO, LATE_DONE, LATE_GO, POOL, TRACER, WORKER, emit

        pytestmark = pytest.mark.trace_spans(global_provider=True)


        def start_and_join(target, *args):
            thread = threading.Thread(target=target, args=args)
            thread.start()
            thread.join()


        def test_threads_pools_and_tasks_of_the_test_are_its_own(trace_spans):
            emit("body")
            start_and_join(emit, "thread")
            start_and_join(start_and_join, emit, "nested thread")
            POOL.submit(emit, "pool").result()
            with ThreadPoolExecutor(2) as own:
                list(own.map(emit, ["own pool 1", "own pool 2"]))

            async def main():
                loop = asyncio.get_running_loop()
                await asyncio.gather(
                    asyncio.to_thread(emit, "to_thread"),
                    loop.run_in_executor(None, emit, "run_in_executor"),
                    asyncio.create_task(asyncio.sleep(0, emit("task"))),
                )

            asyncio.run(main())

            def late():  # still running when this test has ended
                LATE_GO.wait()
                emit("late thread")
                LATE_DONE.set()

            threading.Thread(target=late, daemon=True).start()
            assert sorted(s.name for s in trace_spans.spans()) == sorted([
                "body", "thread", "nested thread", "pool", "own pool 1", "own pool 2",
                "to_thread", "run_in_executor", "task",
            ])


        def test_spans_of_other_threads_are_not_this_tests(trace_spans):
            LATE_GO.set()  # the previous test's thread emits now
            EARLY_GO.set()  # a thread started before any test emits now
            assert LATE_DONE.wait(5) and EARLY_DONE.wait(5)
            done = threading.Event()
            WORKER.put(lambda: (emit("worker"), done.set()))  # no context handed over
            assert done.wait(5)
            POOL.submit(emit, "pool again").result()  # a worker the previous test started
            emit("mine")
            assert sorted(s.name for s in trace_spans.spans()) == ["mine", "pool again"]


        def test_children_of_the_tests_spans_are_its_own(trace_spans):
            with TRACER.start_as_current_span("parent"):
                parent = context.get_current()
            done = threading.Event()

            def child():  # on a thread made before the test, handed the test's span context
                token = context.attach(parent)
                try:
                    emit("child")
                finally:
                    context.detach(token)
                    done.set()

            WORKER.put(child)
            assert done.wait(5)
            assert sorted(s.name for s in trace_spans.spans()) == ["child", "parent"]


        @pytest.fixture
        def anyio_backend():  # the test uses asyncio's own calls; trio may be installed too
            return "asyncio"


        @pytest.mark.anyio
        async def test_an_async_test_captures_its_tasks(trace_spans):
            async def work(n):
                with TRACER.start_as_current_span(f"task {n}"):
                    await asyncio.sleep(0)

            await asyncio.gather(*(asyncio.create_task(work(n)) for n in range(3)))
            assert sorted(s.name for s in trace_spans.spans()) == ["task 0", "task 1", "task 2"]
        """
    )
    result = project.runpytest_subprocess()
    result.assert_outcomes(passed=4)


def test_a_provider_kept_from_an_earlier_test_is_named_as_the_cause(
    project: pytest.Pytester,
) -> None:
    project.makeconftest(
        """
        INSTRUMENTED = {}


        def instrument(provider):
            # An instrumentor: instruments once, keeps the first provider it was given.
            INSTRUMENTED.setdefault("tracer", provider.get_tracer("fake.instrumentation"))


        def emit(name):
            with INSTRUMENTED["tracer"].start_as_current_span(name):
                pass
        """
    )
    project.makepyfile(
        """
        import pytest
        from conftest import emit, instrument

        @pytest.mark.trace_contract("one_span.json")
        def test_first(trace_spans):
            instrument(trace_spans.provider)
            emit("work")

        @pytest.mark.trace_contract("one_span.json")
        def test_second(trace_spans):
            instrument(trace_spans.provider)
            emit("work")
        """
    )
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    first = "test_a_provider_kept_from_an_earlier_test_is_named_as_the_cause.py::test_first"
    result.stdout.fnmatch_lines(
        [
            "*_ test_second _*",
            'trace contract "one-span" could not be checked: no spans were captured; spans of '
            f"this test went to the provider of {first}, which ended with that test: something "
            "kept trace_spans.provider from an earlier test (an instrumentor instrumented once "
            "with it); instrument once with the global provider instead",
        ]
    )


def test_a_private_provider_is_captured_once_attached(project: pytest.Pytester) -> None:
    project.makeconftest(
        """
        import pytest
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        # An instrumentor given a provider of its own, never installed globally.
        PRIVATE_EXPORTER = InMemorySpanExporter()
        PRIVATE = TracerProvider()
        PRIVATE.add_span_processor(SimpleSpanProcessor(PRIVATE_EXPORTER))
        TRACER = PRIVATE.get_tracer("fake.instrumentation")


        def emit(name):
            with TRACER.start_as_current_span(name):
                pass


        @pytest.fixture
        def trace_spans(trace_spans):
            trace_spans.attach(PRIVATE)
            return trace_spans
        """
    )
    project.makepyfile(
        """
        import pytest
        from conftest import PRIVATE_EXPORTER, emit

        @pytest.mark.trace_contract("one_span.json")
        def test_marker():
            emit("work")

        def test_fixture(trace_spans):
            emit("mine")
            assert [s.name for s in trace_spans.spans()] == ["mine"]
            assert [s.name for s in PRIVATE_EXPORTER.get_finished_spans()] == ["work", "mine"]

        def test_not_a_provider(trace_spans):
            with pytest.raises(TypeError, match="needs an OpenTelemetry SDK TracerProvider"):
                trace_spans.attach(object())
        """
    )
    project.runpytest().assert_outcomes(passed=3)


def test_a_global_provider_that_takes_no_processor_is_a_setup_error(
    project: pytest.Pytester,
) -> None:
    project.makeconftest(
        """
        from opentelemetry import trace

        trace.set_tracer_provider(trace.NoOpTracerProvider())
        """
    )
    project.makepyfile(
        """
        import pytest

        @pytest.mark.trace_spans(global_provider=True)
        def test_opted_in(trace_spans):
            pass
        """
    )
    result = project.runpytest_subprocess()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*global_provider=True: the global tracer provider is a "
            "opentelemetry.trace.NoOpTracerProvider, which takes no span processor; hand "
            "trace_spans.provider to the code under test instead"
        ]
    )


def test_under_xdist_each_worker_captures_its_own_tests(project: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    project.makeconftest(INSTRUMENTED)
    project.makepyfile(
        """
        import os
        import pytest
        from conftest import emit

        pytestmark = pytest.mark.trace_spans(global_provider=True)

        @pytest.mark.parametrize("n", range(8))
        def test_each(trace_spans, n):
            emit(f"span {n}")
            emit(f"again {n}")
            assert [s.name for s in trace_spans.spans()] == [f"span {n}", f"again {n}"]
            assert os.environ["PYTEST_XDIST_WORKER"].startswith("gw")

        @pytest.mark.trace_contract("one_span.json")
        def test_fails_with_evidence():
            emit("not work")
        """
    )
    result = project.runpytest_subprocess("-n", "2", "--tracecheck-evidence-dir", "evidence")
    result.assert_outcomes(passed=8, failed=1)
    evidence = sorted(p.name for p in (project.path / "evidence").iterdir())
    stem = "test_under_xdist_each_worker_captures_its_own_tests.py_test_fails_with_evidence"
    assert evidence == [f"{stem}.one-span.verdict.json", f"{stem}.otlp.json"]


def test_an_in_process_session_leaves_no_trace_behind(project: pytest.Pytester) -> None:
    start, submit = threading.Thread.start, ThreadPoolExecutor.submit
    project.makeconftest(INSTRUMENTED)
    project.makepyfile(
        """
        import threading
        from concurrent.futures import ThreadPoolExecutor
        import pytest
        from conftest import emit

        @pytest.mark.trace_spans(global_provider=True)
        def test_global(trace_spans):
            assert threading.Thread.start.__wrapped__  # carries the test's context
            assert ThreadPoolExecutor.submit.__wrapped__
            emit("captured")
            assert [s.name for s in trace_spans.spans()] == ["captured"]
        """
    )
    project.runpytest().assert_outcomes(passed=1)
    assert (threading.Thread.start, ThreadPoolExecutor.submit) == (start, submit)
    assert trace._TRACER_PROVIDER is None
    assert trace._TRACER_PROVIDER_SET_ONCE._done is False
