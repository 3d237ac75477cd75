"""The suite's skip guard (tests/conftest.py): a skip that ALLOWED_SKIPS does not name fails the
session, whether a test skips or a whole module does at import; an allowed skip and an expected
failure do not; `TRACECHECK_ALLOW_SKIPS=1` lets a local run pass with its skips. Each case runs
the real conftest in a pytest session of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).with_name("conftest.py").read_text(encoding="utf-8")

PASSING = """
import pytest

def test_passes():
    pass

@pytest.mark.xfail(strict=True, reason="a known bug")
def test_known_bug():
    assert False

def test_known_bug_said_inside():
    pytest.xfail("a known bug, said at run time")
"""


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.delenv("TRACECHECK_ALLOW_SKIPS", raising=False)
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider\n")
    pytester.makeconftest(
        CONFTEST
        + '\nALLOWED_SKIPS["test_allowed.py::test_on_another_platform"] = "a platform\'s own"\n'
    )
    pytester.makepyfile(test_passing=PASSING)
    return pytester


def test_a_session_of_passes_and_expected_failures_passes(suite: pytest.Pytester) -> None:
    result = suite.runpytest()
    result.assert_outcomes(passed=1, xfailed=2)
    assert result.ret == pytest.ExitCode.OK
    assert "skips not allowed" not in result.stdout.str()


def test_an_allowed_skip_passes(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_allowed="""
        import pytest

        @pytest.mark.parametrize("n", [1, 2])
        def test_on_another_platform(n):
            pytest.skip("no /dev/fd here")
        """
    )
    result = suite.runpytest()
    result.assert_outcomes(passed=1, xfailed=2, skipped=2)
    assert result.ret == pytest.ExitCode.OK


def test_a_skip_nobody_allowed_fails_the_session(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_browser="""
        import pytest

        @pytest.mark.skipif(True, reason="chromedriver is not installed")
        def test_in_a_browser():
            pass

        def test_with_a_driver():
            pytest.skip("no driver")
        """
    )
    result = suite.runpytest()
    result.assert_outcomes(passed=1, xfailed=2, skipped=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*= skips not allowed =*",
            "test_browser.py::test_in_a_browser: chromedriver is not installed",
            "test_browser.py::test_with_a_driver: no driver",
            "2 skipped outside ALLOWED_SKIPS (tests/conftest.py), so the session fails:*",
        ]
    )


def test_a_module_that_skips_at_import_fails_the_session(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_extra="""
        import pytest

        pytest.importorskip("no_such_module_of_an_extra")

        def test_needs_it():
            pass
        """
    )
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*= skips not allowed =*", "test_extra.py: could not import 'no_such_module_of_an_extra'*"]
    )


def test_a_local_run_may_allow_every_skip(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makepyfile(test_browser="import pytest\n\ndef test_x():\n    pytest.skip('no driver')\n")
    monkeypatch.setenv("TRACECHECK_ALLOW_SKIPS", "1")
    result = suite.runpytest()
    result.assert_outcomes(passed=1, xfailed=2, skipped=1)
    assert result.ret == pytest.ExitCode.OK


def test_a_failure_keeps_its_exit_code(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        test_broken="import pytest\n\ndef test_a():\n    assert False\n\n"
        "def test_b():\n    pytest.skip('no driver')\n",
    )
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*= skips not allowed =*"])


def test_every_allowed_skip_names_a_test_and_says_why() -> None:
    from conftest import ALLOWED_SKIPS

    root = Path(__file__).resolve().parent.parent
    for nodeid, why in ALLOWED_SKIPS.items():
        path, _, name = nodeid.partition("::")
        assert (root / path).is_file(), nodeid
        assert f"def {name.partition('[')[0]}(" in (root / path).read_text(encoding="utf-8")
        assert len(why) > 20, nodeid
