"""Static checks of the deployment files: no image can be built or pulled where the tests run."""

from __future__ import annotations

import configparser
import re
import shlex
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from conftest import REPO

DEPLOY = REPO / "deploy"


@pytest.fixture(scope="module")
def cli_help() -> dict[str, str]:
    import gpuvalue.flows.cli.serve  # noqa: F401  (registers `serve`)
    from gpuvalue.flows.cli import app

    runner = CliRunner()
    top = runner.invoke(app, ["--help"])
    assert top.exit_code == 0, top.output
    return {name: runner.invoke(app, [name, "--help"]).output for name in ("run", "serve")} | {"": top.output}


def _gpuvalue_invocations(text: str) -> list[list[str]]:
    """Every `gpuvalue <command> ...` found in a shell-like line, as argument lists."""
    calls = []
    for m in re.finditer(r"\bgpuvalue\s+([a-z][a-z-]*)([^\n;&|>]*)", text):
        calls.append([m.group(1), *shlex.split(m.group(2))])
    return calls


def _options(help_text: str) -> set[str]:
    return set(re.findall(r"(--[a-z][a-z-]*)", help_text))


def _check_invocation(call: list[str], cli_help: dict[str, str]) -> None:
    command, *args = call
    assert command in cli_help, f"gpuvalue {command} is not a CLI command"
    known = _options(cli_help[command])
    for a in args:
        if a.startswith("--"):
            assert a.split("=")[0] in known, f"gpuvalue {command} has no option {a}"


def test_cli_has_the_commands_the_files_call(cli_help):
    assert re.search(r"\brun\b", cli_help[""]) and re.search(r"\bserve\b", cli_help[""])
    assert {"--replay", "--db", "--task-runner"} <= _options(cli_help["run"])
    assert {"--cron", "--timezone", "--replay", "--db"} <= _options(cli_help["serve"])


def test_compose_services_reference_each_other():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert {"postgres", "prefect-server", "gpuvalue"} <= set(services)
    volumes = set(compose.get("volumes") or {})
    for name, svc in services.items():
        assert "image" in svc or "build" in svc, name
        for dep in svc.get("depends_on") or {}:
            assert dep in services, f"{name} depends on unknown service {dep}"
        for mount in svc.get("volumes") or []:
            source = mount.split(":")[0]
            if not source.startswith((".", "/")):
                assert source in volumes, f"{name} mounts undeclared volume {source}"
    server_db = services["prefect-server"]["environment"]["PREFECT_API_DATABASE_CONNECTION_URL"]
    assert server_db.startswith("postgresql+asyncpg://") and "@postgres:" in server_db
    pipeline = services["gpuvalue"]
    assert pipeline["environment"]["PREFECT_API_URL"] == "http://prefect-server:4200/api"
    assert pipeline["command"][0] == "serve"
    assert any(m.endswith(":/app/data") for m in pipeline["volumes"])
    build = pipeline["build"]
    assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == (DEPLOY / "Dockerfile").resolve()


def test_compose_command_is_a_valid_serve_call(cli_help):
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    cmd = [re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", a) for a in compose["services"]["gpuvalue"]["command"]]
    _check_invocation(cmd, cli_help)


def _dockerfile_instructions() -> list[tuple[str, str]]:
    text = (DEPLOY / "Dockerfile").read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_dockerfile_copy_sources_exist():
    copies = [rest for word, rest in _dockerfile_instructions() if word == "COPY"]
    assert copies
    for rest in copies:
        args = [a for a in shlex.split(rest) if not a.startswith("--")]
        if "--from=" in rest:
            continue  # from another stage or image
        *sources, _dest = args
        for src in sources:
            assert (REPO / src).exists(), f"Dockerfile copies {src}, which the repository lacks"


def test_dockerfile_is_multi_stage_uv_slim_and_unprivileged():
    instr = _dockerfile_instructions()
    froms = [rest for word, rest in instr if word == "FROM"]
    assert len(froms) >= 2 and all("-slim" in f for f in froms)
    runs = " ".join(rest for word, rest in instr if word == "RUN")
    assert "uv sync --frozen --no-dev" in runs
    users = [rest for word, rest in instr if word == "USER"]
    assert users and users[-1] not in ("root", "0")
    assert ("ENTRYPOINT", '["gpuvalue"]') in instr


def test_dockerignore_keeps_what_the_dockerfile_copies():
    lines = [ln.strip() for ln in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()]
    allowed = {ln[1:].rstrip("/") for ln in lines if ln.startswith("!")}
    for word, rest in _dockerfile_instructions():
        if word == "COPY" and "--from=" not in rest:
            *sources, _ = [a for a in shlex.split(rest) if not a.startswith("--")]
            assert set(sources) <= allowed, sources


def _unit(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # systemd keys are case-sensitive
    parser.read_string(path.read_text())
    return parser


def test_systemd_units_have_required_keys(cli_help):
    service = _unit(DEPLOY / "systemd" / "gpuvalue.service")
    assert service["Service"]["Type"] == "oneshot"
    exec_start = service["Service"]["ExecStart"]
    [call] = _gpuvalue_invocations(exec_start)
    assert call[0] == "run"
    _check_invocation(call, cli_help)
    assert service["Unit"]["Description"]

    timer = _unit(DEPLOY / "systemd" / "gpuvalue.timer")
    assert timer["Timer"]["OnCalendar"] == "*-*-* 06:00:00"
    assert timer["Timer"]["Persistent"] == "true"
    assert timer["Timer"]["Unit"] == "gpuvalue.service"
    assert timer["Install"]["WantedBy"] == "timers.target"


@pytest.mark.e2e  # imports Prefect (about 2 s of a test worker): the fast tier imports none
def test_cron_line_parses_and_runs_the_pipeline(cli_help):
    from prefect.schedules import Cron

    lines = [ln for ln in (DEPLOY / "cron" / "gpuvalue.cron").read_text().splitlines()
             if ln.strip() and not ln.lstrip().startswith("#")]
    assert len(lines) == 1
    fields = lines[0].split(None, 5)
    schedule = " ".join(fields[:5])
    assert schedule == "0 6 * * *"
    Cron(schedule)  # raises on an invalid expression
    [call] = _gpuvalue_invocations(fields[5])
    assert call[0] == "run"
    _check_invocation(call, cli_help)


@pytest.mark.e2e  # imports Prefect (about 2 s of a test worker): the fast tier imports none
def test_prefect_yaml_matches_the_served_deployment():
    from gpuvalue.flows.cli import serve
    from gpuvalue.flows.daily import daily_flow
    from gpuvalue.flows.settings import Settings

    doc = yaml.safe_load((REPO / "prefect.yaml").read_text())
    [dep] = doc["deployments"]
    assert dep["name"] == serve.DEPLOYMENT_NAME
    path, _, func = dep["entrypoint"].partition(":")
    assert (REPO / path).is_file() and func == daily_flow.fn.__name__
    [schedule] = dep["schedules"]
    defaults = Settings()
    assert schedule["cron"] == defaults.schedule_cron and schedule["timezone"] == defaults.schedule_timezone
    flow_params = set(daily_flow.parameters.properties)
    assert set(dep["parameters"]) <= flow_params


@pytest.mark.e2e  # imports Prefect (about 2 s of a test worker): the fast tier imports none
def test_served_deployment_object_carries_the_schedule():
    from gpuvalue.flows.cli import serve

    dep = serve.build_deployment("15 4 * * 1-5", "America/New_York", replay=True, db="/srv/g.duckdb")
    assert dep.name == "gpuvalue-daily"
    assert dep.entrypoint == "gpuvalue.flows.daily.daily_flow"
    [sched] = dep.schedules
    assert sched.schedule.cron == "15 4 * * 1-5" and sched.schedule.timezone == "America/New_York"
    assert dep.parameters == {"replay": True, "db": "/srv/g.duckdb"}
