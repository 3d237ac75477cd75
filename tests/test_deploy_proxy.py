"""The proxy's deployment files (deploy/proxy/) fit together and fit the CLI: the image runs
`tracecheck proxy` with options that exist, the Collector in front exports OTLP/HTTP to the
proxy's address, and the proxy forwards to the Collector behind it."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from tracecheck.cli.app import build_parser

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy" / "proxy"


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the final stage and every stage before it, in order, with
    line continuations joined and comments dropped."""
    text = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n\s*", " ", "\n".join(lines))
    instructions = []
    for line in joined.splitlines():
        if line.strip():
            word, _, rest = line.strip().partition(" ")
            instructions.append((word.upper(), rest.strip()))
    return instructions


def exec_form(instructions: list[tuple[str, str]], name: str) -> list[str]:
    (value,) = [rest for word, rest in instructions if word == name][-1:]
    words = json.loads(value)  # the exec form: signals reach tracecheck, not a shell
    assert isinstance(words, list) and all(isinstance(word, str) for word in words)
    return words


def proxy_options() -> set[str]:
    parser = build_parser()
    (commands,) = (a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return {
        option for action in commands.choices["proxy"]._actions for option in action.option_strings
    }


def proxy_arguments(words: list[str]) -> Any:
    """The parsed options of a `tracecheck proxy ...` command line (SystemExit if one is
    unknown or missing). Every option is written out in full: argparse would also take an
    abbreviation, which a later option could make ambiguous."""
    options = proxy_options()
    for word in words:
        if word.startswith("-"):
            assert word.partition("=")[0] in options, f"tracecheck proxy has no option {word}"
    return build_parser().parse_args(["proxy", *words])


def load(name: str) -> dict[str, Any]:
    document = yaml.safe_load((DEPLOY / name).read_text(encoding="utf-8"))
    assert isinstance(document, dict)
    return document


def test_the_image_runs_the_proxy_with_options_that_exist() -> None:
    instructions = dockerfile_instructions()
    assert instructions[0][0] == "FROM"
    bases = [rest for word, rest in instructions if word == "FROM"]
    assert all(re.match(r"python:3\.(1[1-9])-slim\b", base) for base in bases), bases
    entrypoint = exec_form(instructions, "ENTRYPOINT")
    assert entrypoint == ["tracecheck", "proxy"]
    args = proxy_arguments(exec_form(instructions, "CMD"))
    assert args.command == "proxy"
    host, _, port = args.listen.rpartition(":")
    assert host == "0.0.0.0"  # reachable from outside the container
    assert f"EXPOSE {port}" in {f"{word} {rest}" for word, rest in instructions}
    assert urlsplit(args.upstream).scheme == "http"


def test_the_image_installs_the_project_with_what_the_proxy_needs() -> None:
    instructions = dockerfile_instructions()
    copied = " ".join(rest for word, rest in instructions if word == "COPY")
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for needed in ("pyproject.toml", "README.md", "LICENSE", "tracecheck", "redact", "contracts"):
        assert needed in copied
        assert (ROOT / needed).exists()
    runs = " ".join(rest for word, rest in instructions if word == "RUN")
    assert "pip wheel" in runs and "pip install" in runs
    # What `tracecheck proxy` serves with: the serve extra, which the image builds wheels for,
    # and the project's own dependencies.
    project = tomllib.loads(pyproject)["project"]
    assert "'.[serve]'" in runs
    for package in ("uvicorn", "httpx"):
        assert any(d.startswith(package) for d in project["optional-dependencies"]["serve"])
    assert any(d.startswith("opentelemetry-proto") for d in project["dependencies"])
    assert any(word == "USER" and rest not in ("root", "0") for word, rest in instructions)


def test_the_edge_collector_exports_to_the_proxy() -> None:
    compose = load("compose.yaml")
    services = compose["services"]
    proxy = services["tracecheck-proxy"]
    assert proxy["build"]["dockerfile"] == "deploy/proxy/Dockerfile"
    assert (DEPLOY / proxy["build"]["context"] / proxy["build"]["dockerfile"]).resolve() == (
        DEPLOY / "Dockerfile"
    )
    args = proxy_arguments(proxy["command"])
    listen_port = int(args.listen.rpartition(":")[2])
    for name in args.known_secret_env:
        assert name in proxy["environment"]
    assert "TRACECHECK_PSEUDONYM_KEY" in proxy["environment"]

    edge = load("collector-edge.yaml")
    pipelines = edge["service"]["pipelines"]
    # Every signal goes through the proxy: logs carry GenAI events' prompts and completions.
    assert {name.split("/")[0] for name in pipelines} == {"traces", "logs", "metrics"}
    for pipeline in pipelines.values():
        exporters = [name for name in pipeline["exporters"] if name.split("/")[0] == "otlphttp"]
        assert exporters and exporters == pipeline["exporters"]  # nothing bypasses the proxy
        for name in exporters:
            endpoint = urlsplit(edge["exporters"][name]["endpoint"])
            assert endpoint.hostname == "tracecheck-proxy" and endpoint.port == listen_port
            # otlphttp appends /v1/traces, /v1/logs or /v1/metrics, which the proxy serves
            assert endpoint.path in ("", "/")
        assert set(pipeline["receivers"]) <= set(edge["receivers"])
    mounted = services["collector-edge"]["volumes"][0].split(":")[0]
    assert (DEPLOY / mounted).resolve() == DEPLOY / "collector-edge.yaml"


def test_the_proxy_forwards_to_the_collector_behind_it() -> None:
    compose = load("compose.yaml")
    services = compose["services"]
    upstream = urlsplit(proxy_arguments(services["tracecheck-proxy"]["command"]).upstream)
    assert upstream.hostname in services
    egress = load("collector-egress.yaml")
    http = egress["receivers"]["otlp"]["protocols"]["http"]
    assert int(http["endpoint"].rpartition(":")[2]) == upstream.port
    mounted = services[upstream.hostname]["volumes"][0].split(":")[0]
    assert (DEPLOY / mounted).resolve() == DEPLOY / "collector-egress.yaml"
    # The image's default points at the same service.
    cmd = proxy_arguments(exec_form(dockerfile_instructions(), "CMD"))
    assert urlsplit(cmd.upstream).hostname == upstream.hostname


@pytest.mark.parametrize("name", ["collector-edge.yaml", "collector-egress.yaml"])
def test_the_collector_pipelines_name_defined_components(name: str) -> None:
    config = load(name)
    for pipeline_name, pipeline in config["service"]["pipelines"].items():
        assert pipeline_name.split("/")[0] in ("traces", "logs", "metrics")
        for kind in ("receivers", "processors", "exporters"):
            for component in pipeline.get(kind, []):
                assert component in config[kind], (name, kind, component)


def test_the_deployment_page_shows_the_files_it_describes() -> None:
    page = (ROOT / "docs" / "deploy-proxy.md").read_text(encoding="utf-8")
    for name in ("Dockerfile", "collector-edge.yaml", "compose.yaml", "collector-egress.yaml"):
        assert f'--8<-- "deploy/proxy/{name}"' in page
