"""What ``deploy/`` holds, held to the code: every variable it sets is a setting, every path the
proxy routes is a route the bot serves (and ``/metrics`` is not), every metric an alert rule
or a dashboard panel names is one the bot exports, and the systemd unit never restarts a
process that stopped for a setting to fix.

The routes and metrics are read from the code (``Process.routes()``, the health routes, the
metrics registry), never copied here: when they move, these tests follow.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from pydantic import ValidationError
from sqlalchemy.engine import make_url

from bot.__main__ import report_bad_settings
from bot.app import build_application
from bot.serve import Process
from bot.settings import Settings
from bot.storage.leadership import SqliteLeadership
from bot.telegram import metrics

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
COMPOSE_FILES = ("compose.yaml", "compose.sqlite.yaml")
TOKEN = "123456789:" + "A" * 35
#: What an operator puts in deploy/.env, for the tests.
SAMPLE_ENV = {
    "CARDROOM_HOST": "cards.example.org",
    "POSTGRES_PASSWORD": "secret0secret1",
    "TELEGRAM_BOT_TOKEN": TOKEN,
}
#: Metrics an expression may name that the bot does not export: Prometheus' own.
PROMETHEUS_OWN = {"up"}
INTERPOLATION = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}")

# -- reading the files -------------------------------------------------------------------------


def setting_names() -> set[str]:
    """Every environment variable the bot reads: its settings' names in upper case."""
    return {name.upper() for name in Settings.model_fields}


def interpolate(text: str, env: dict[str, str]) -> str:
    """Compose's ``${VAR}``, ``${VAR:-default}`` and ``${VAR:?message}``, from ``env``."""

    def value(match: re.Match[str]) -> str:
        name, kind, rest = match.groups()
        if name in env and (env[name] or not kind or ":" not in kind):
            return env[name]
        if kind and kind.endswith("-"):
            return rest
        if kind and kind.endswith("?"):
            raise AssertionError(f"${{{name}}} is required: {rest}")
        return ""

    return INTERPOLATION.sub(value, text)


def compose(name: str) -> dict[str, Any]:
    loaded = yaml.safe_load(interpolate((DEPLOY / name).read_text(), SAMPLE_ENV))
    assert isinstance(loaded, dict)
    return loaded


def env_file(path: Path) -> dict[str, str]:
    """The variables a dotenv file sets, and those it shows commented out (``# NAME=…``)."""
    found = {}
    for line in path.read_text().splitlines():
        match = re.match(r"#?\s*([A-Z][A-Z0-9_]*)=(.*)$", line.strip())
        if match:
            found[match.group(1)] = match.group(2).strip()
    return found


def environment_of(service: dict[str, Any]) -> dict[str, str]:
    """A compose service's ``environment`` (a mapping or a list of ``NAME=value``)."""
    environment = service.get("environment") or {}
    if isinstance(environment, list):
        return dict(item.split("=", 1) for item in environment)
    return {name: str(value) for name, value in environment.items()}


def env_files_of(service: dict[str, Any]) -> list[Path]:
    files = service.get("env_file") or []
    if isinstance(files, str | dict):
        files = [files]
    return [DEPLOY / (f["path"] if isinstance(f, dict) else f) for f in files]


def bot_services(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The services that run the bot: those built from the repository, and those running the
    image one of them builds."""
    services: dict[str, dict[str, Any]] = spec["services"]
    built = {s.get("image") for s in services.values() if "build" in s}
    return {n: s for n, s in services.items() if "build" in s or s.get("image") in built}


def bot_settings(service: dict[str, Any], database_url: str) -> Settings:
    """The settings a bot service runs with (its env files, then its environment), on
    another database."""
    values: dict[str, str] = {}
    for path in env_files_of(service):
        values.update((k, v) for k, v in env_file(path).items() if not _commented(path, k))
    values.update(environment_of(service))
    values["DATABASE_URL"] = database_url
    return Settings(**{k.lower(): v for k, v in values.items()}, _env_file=None)  # type: ignore[call-arg]


def _commented(path: Path, name: str) -> bool:
    return not any(line.startswith(f"{name}=") for line in path.read_text().splitlines())


@dataclass
class Block:
    """A Caddyfile line and the block it opens, if any."""

    tokens: list[str]
    children: list[Block] = field(default_factory=list)


def caddyfile(path: Path) -> list[Block]:
    """The Caddyfile's lines as a tree of blocks (comments dropped)."""
    root = Block([])
    stack = [root]
    for raw in path.read_text().splitlines():
        tokens = raw.split("#", 1)[0].split() if not raw.strip().startswith("#") else []
        if not tokens:
            continue
        if tokens == ["}"]:
            stack.pop()
            continue
        opens = tokens[-1] == "{"
        block = Block(tokens[:-1] if opens else tokens)
        stack[-1].children.append(block)
        if opens:
            stack.append(block)
    assert len(stack) == 1, "unbalanced braces in the Caddyfile"
    return root.children


def walk(blocks: list[Block], matcher: str | None = None) -> Iterator[tuple[Block, str | None]]:
    """Every block with the matcher it runs under (its own, or its enclosing handle's)."""
    for block in blocks:
        own = block.tokens[1] if len(block.tokens) > 1 else None
        if own is not None and not (own.startswith("@") or own.startswith("/")):
            own = None
        here = own or matcher
        yield block, here
        if block.tokens and block.tokens[0] in ("handle", "route", "handle_path"):
            yield from walk(block.children, here)
        else:
            yield from walk(block.children, matcher)


@dataclass(frozen=True)
class Proxy:
    """A ``reverse_proxy`` of the Caddyfile: the paths it serves, where it sends them, and how
    it asks whether an upstream is healthy."""

    paths: tuple[str, ...]
    upstreams: tuple[str, ...]
    options: dict[str, str]


def proxies(path: Path) -> list[Proxy]:
    blocks = caddyfile(path)
    matchers: dict[str, list[str]] = {}
    for block, _ in walk(blocks):
        if block.tokens and block.tokens[0].startswith("@"):
            assert block.tokens[1:2] == ["path"], f"only path matchers are read: {block.tokens}"
            matchers[block.tokens[0]] = block.tokens[2:]
    found = []
    for block, matcher in walk(blocks):
        if not block.tokens or block.tokens[0] != "reverse_proxy":
            continue
        args = block.tokens[1:]
        if args and (args[0].startswith("@") or args[0].startswith("/")):
            args = args[1:]
        assert matcher is not None, f"a catch-all reverse_proxy routes every path: {block.tokens}"
        paths = matchers[matcher] if matcher.startswith("@") else [matcher]
        options = {c.tokens[0]: " ".join(c.tokens[1:]) for c in block.children}
        found.append(Proxy(tuple(paths), tuple(args), options))
    return found


def caddy_pattern(path: str) -> re.Pattern[str]:
    """Caddy's path matcher as a regular expression (``*`` matches anything)."""
    return re.compile(".*".join(re.escape(part) for part in path.split("*")))


def example_path(route: str) -> str:
    """A path a tornado route pattern matches (each group filled in)."""
    return re.sub(r"\([^)]*\)", "x/y.js", route).rstrip("$")


def unit_file(path: Path) -> dict[str, dict[str, list[str]]]:
    """A systemd unit: section → key → its values, in order."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def exported_metrics() -> set[str]:
    """Every series name the bot's registry exposes, with the suffixes of its type."""
    suffixes = {
        "counter": ("_total", "_created"),
        "histogram": ("_bucket", "_count", "_sum", "_created"),
        "summary": ("_count", "_sum", "_created"),
        "gauge": ("",),
        "info": ("_info",),
    }
    names = set()
    for family in metrics.REGISTRY.collect():
        names.update(family.name + suffix for suffix in suffixes.get(family.type, ("",)))
    return names


PROMQL_WORDS = {
    "by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless",
    "bool", "offset", "inf", "nan", "le",
}  # fmt: skip


def metric_names(expression: str) -> set[str]:
    """The metrics a PromQL expression names: its identifiers that are not functions,
    keywords, label names or values."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', "", expression)  # strings
    text = re.sub(r"\{[^}]*\}", "", text)  # label matchers
    text = re.sub(r"\[[^\]]*\]", "", text)  # ranges
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", text)
    names = set()
    for match in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", text):
        following = text[match.end() :].lstrip()
        if following.startswith("(") or match.group() in PROMQL_WORDS:
            continue
        names.add(match.group())
    return names


@pytest.fixture(scope="module")
def routes(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], list[str]]:
    """The bot's public and private route patterns, from the code, as the PostgreSQL compose
    file's first worker would serve them (webhook and Mini App on)."""
    spec = compose("compose.yaml")
    name, service = next(iter(bot_services(spec).items()))
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp(name) / 'cardroom.db'}"
    settings = bot_settings(service, url)
    assert settings.webhook_url and settings.webapp_url, "the workers run a webhook and Mini App"
    process = Process(build_application(settings), settings, SqliteLeadership(url))
    health = getattr(process, "health_routes", None)
    private = [r[0] for r in (health() if health else metrics.routes(process.readiness))]
    public = [r[0] for r in process.routes() if r[0] not in private]
    return public, private


# -- compose -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", COMPOSE_FILES)
def test_every_variable_the_compose_file_sets_for_the_bot_is_a_setting(name: str) -> None:
    spec = compose(name)
    services = bot_services(spec)
    assert services, f"{name} runs no bot"
    for service_name, service in services.items():
        set_here = set(environment_of(service))
        for path in env_files_of(service):
            assert path.is_file(), f"{service_name}'s env_file {path.name} is not in deploy/"
            set_here |= set(env_file(path))
        unknown = set_here - setting_names()
        assert not unknown, f"{name}: {service_name} sets {unknown}, which the bot never reads"
        # ... and with values the bot accepts.
        bot_settings(service, "sqlite+aiosqlite:///cardroom.db")


@pytest.mark.parametrize("name", COMPOSE_FILES)
def test_what_the_compose_file_fills_in_is_in_its_example(name: str) -> None:
    text = (DEPLOY / name).read_text()
    wanted = {m.group(1) for m in INTERPOLATION.finditer(text)}
    example = env_file(DEPLOY / "env.example")
    assert wanted <= set(example), f"{name} needs {wanted - set(example)} in env.example"


@pytest.mark.parametrize("name", COMPOSE_FILES)
def test_the_bot_services_restart_wait_for_their_database_and_say_they_are_healthy(
    name: str, routes: tuple[list[str], list[str]]
) -> None:
    spec = compose(name)
    services = spec["services"]
    _, private = routes
    for service_name, service in bot_services(spec).items():
        assert service.get("restart") == "unless-stopped", service_name
        environment = environment_of(service)
        health_port = environment.get(
            "HEALTH_PORT", str(Settings.model_fields["health_port"].default)
        )
        probe = " ".join(service["healthcheck"]["test"])
        url = re.search(r"http://[^'\" ]+", probe)
        assert url is not None, f"{service_name}'s healthcheck asks no URL: {probe}"
        parts = urlsplit(url.group())
        assert str(parts.port) == health_port, f"{service_name} probes another port than its own"
        assert parts.path in private, f"{service_name} probes {parts.path}, not a health route"
        database = make_url(environment["DATABASE_URL"])
        if database.get_backend_name() == "sqlite":
            continue
        host = database.host
        assert host in services, f"{service_name}'s database {host} is not a service"
        assert "healthcheck" in services[host], f"the database {host} has no healthcheck"
        condition = service["depends_on"][host]["condition"]
        assert condition == "service_healthy", f"{service_name} starts before {host} is up"


def test_the_workers_run_one_image_built_once() -> None:
    spec = compose("compose.yaml")
    workers = bot_services(spec)
    assert len(workers) >= 2, "several processes"
    builders = [name for name, service in workers.items() if "build" in service]
    assert len(builders) == 1, f"the image is built by {builders}"
    images = {service["image"] for service in workers.values()}
    assert len(images) == 1, f"the workers run {images}"
    for name, service in workers.items():
        if name not in builders:
            assert service.get("pull_policy") == "never", f"{name} would try to pull the image"


def test_the_workers_serve_the_mini_app_at_the_hosts_root() -> None:
    for service in bot_services(compose("compose.yaml")).values():
        settings = bot_settings(service, "sqlite+aiosqlite:///cardroom.db")
        assert settings.webapp_url is not None
        assert urlsplit(settings.webapp_url).path in ("", "/"), "WEBAPP_URL must be the root"
        assert settings.health_host != "127.0.0.1", "Caddy and Prometheus must reach /readyz"


# -- the proxy ---------------------------------------------------------------------------------


def test_the_proxy_routes_every_public_route_and_only_those(
    routes: tuple[list[str], list[str]],
) -> None:
    public, private = routes
    assert public, "the bot serves no public route"
    found = proxies(DEPLOY / "Caddyfile")
    assert found, "the Caddyfile proxies nothing"
    routed = [path for proxy in found for path in proxy.paths]
    for path in routed:
        example = path.replace("*", "x/y.js")
        assert any(re.fullmatch(route, example) for route in public), (
            f"the Caddyfile routes {path}, which the bot does not serve publicly ({public})"
        )
    for route in public:
        assert any(caddy_pattern(path).fullmatch(example_path(route)) for path in routed), (
            f"the bot serves {route}, which the Caddyfile does not route"
        )
    for route in private:
        assert not any(caddy_pattern(path).fullmatch(example_path(route)) for path in routed), (
            f"the Caddyfile publishes {route}"
        )
    assert "/metrics" in private


def test_the_proxy_sends_to_the_workers_public_port_and_checks_their_readiness(
    routes: tuple[list[str], list[str]],
) -> None:
    _, private = routes
    workers = bot_services(compose("compose.yaml"))
    for proxy in proxies(DEPLOY / "Caddyfile"):
        hosts = set()
        for upstream in proxy.upstreams:
            host, _, port = upstream.rpartition(":")
            hosts.add(host)
            settings = bot_settings(workers[host], "sqlite+aiosqlite:///cardroom.db")
            assert int(port) == settings.webhook_port, f"{upstream} is not its public port"
            assert proxy.options.get("health_port") == str(settings.health_port)
        assert hosts == set(workers), f"the proxy sends to {hosts}, the workers are {set(workers)}"
        assert proxy.options.get("health_uri") in private
        # The bot caps sockets per address: the proxy must say the client's, not pass his.
        assert proxy.options.get("header_up", "").startswith("X-Real-IP {remote_host}")


def test_the_webhook_is_routed_where_telegram_posts(routes: tuple[list[str], list[str]]) -> None:
    public, _ = routes
    for service in bot_services(compose("compose.yaml")).values():
        settings = bot_settings(service, "sqlite+aiosqlite:///cardroom.db")
        assert settings.webhook_url is not None
        parts = urlsplit(settings.webhook_url)
        assert parts.scheme == "https" and parts.port in (None, 443, 80, 88, 8443)
        assert parts.path in public


def test_a_catch_all_proxy_is_caught(tmp_path: Path) -> None:
    """The check above can fail: a ``reverse_proxy`` outside a path matcher routes
    ``/metrics`` too."""
    caddy = tmp_path / "Caddyfile"
    caddy.write_text("example.org {\n\treverse_proxy worker1:8443\n}\n")
    with pytest.raises(AssertionError, match="catch-all"):
        proxies(caddy)


# -- systemd -----------------------------------------------------------------------------------


def test_the_unit_never_restarts_a_process_stopped_for_a_setting_to_fix(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(ValidationError) as bad:
        Settings(turn_seconds=1, _env_file=None)  # type: ignore[call-arg]
    settings_fault = report_bad_settings(bad.value)
    capsys.readouterr()
    service = unit_file(DEPLOY / "cardroom.service")["Service"]
    assert service["RestartPreventExitStatus"] == [str(settings_fault)]
    assert service["Restart"] == ["on-failure"]
    assert service["KillSignal"] == ["SIGTERM"]
    assert "TimeoutStopSec" in service


def test_the_unit_sets_only_settings_by_absolute_paths_as_its_own_user() -> None:
    unit = unit_file(DEPLOY / "cardroom.service")
    service = unit["Service"]
    assert service["User"] and service["User"] != ["root"]
    for key in ("WorkingDirectory", "EnvironmentFile", "ExecStart"):
        for value in service[key]:
            assert value.lstrip("-").startswith("/"), f"{key}={value} is relative"
    assigned = dict(
        item.split("=", 1) for value in service["Environment"] for item in value.split()
    )
    assert set(assigned) <= setting_names(), f"{set(assigned) - setting_names()} are not settings"
    database = make_url(assigned["DATABASE_URL"]).database
    assert database is not None and database.startswith("/"), "the SQLite file's path is relative"
    assert Path(database).parent == Path(service["WorkingDirectory"][0])
    assert service.get("NoNewPrivileges") == ["yes"] and service.get("ProtectSystem") == ["strict"]


# -- Prometheus and Grafana --------------------------------------------------------------------


def alert_rules() -> list[dict[str, Any]]:
    spec = yaml.safe_load((DEPLOY / "prometheus" / "alerts.yml").read_text())
    return [rule for group in spec["groups"] for rule in group["rules"]]


def dashboard_expressions() -> list[str]:
    dashboard = json.loads((DEPLOY / "grafana" / "cardroom.json").read_text())
    panels = [p for p in dashboard["panels"] if p["type"] != "row"]
    assert panels, "the dashboard has no panel"
    return [target["expr"] for panel in panels for target in panel.get("targets", [])]


def test_every_metric_an_alert_names_is_exported() -> None:
    exported = exported_metrics() | PROMETHEUS_OWN
    rules = alert_rules()
    named = set()
    for rule in rules:
        names = metric_names(rule["expr"])
        assert names, f"{rule['alert']} names no metric"
        assert names <= exported, f"{rule['alert']} names {names - exported}, not exported"
        named |= names
    # What the operator must hear of: no leader or two, the inbox behind, 429s, failing calls.
    for needed in (
        "cardroom_leader",
        "cardroom_inbox_lag_seconds",
        "cardroom_telegram_429_total",
        "cardroom_telegram_calls_total",
        "up",
    ):
        assert needed in named, f"no alert watches {needed}"


def test_every_metric_a_panel_names_is_exported_and_every_one_of_ours_is_shown() -> None:
    exported = exported_metrics()
    shown = set()
    for expression in dashboard_expressions():
        names = metric_names(expression)
        assert names and names <= exported, f"{expression} names {names - exported}"
        shown |= names
    ours = {f.name for f in metrics.REGISTRY.collect() if f.name.startswith("cardroom_")}
    unshown = {name for name in ours if not any(s.startswith(name) for s in shown)}
    assert not unshown, f"the dashboard shows nothing of {unshown}"


def test_a_metric_the_bot_does_not_export_is_caught() -> None:
    """The checks above can fail: a misspelt metric is not among the exported ones."""
    names = metric_names('sum by (via) (rate(cardroom_updates_takn_total{via="webhook"}[5m]))')
    assert names == {"cardroom_updates_takn_total"}
    assert not names <= exported_metrics()


def test_prometheus_scrapes_every_worker_on_its_health_port() -> None:
    spec = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    assert "alerts.yml" in spec["rule_files"]
    workers = bot_services(compose("compose.yaml"))
    targets = {
        target
        for job in spec["scrape_configs"]
        if job["job_name"] == "cardroom"
        for config in job["static_configs"]
        for target in config["targets"]
    }
    expected = {
        f"{name}:{bot_settings(service, 'sqlite+aiosqlite:///x.db').health_port}"
        for name, service in workers.items()
    }
    assert targets == expected


def test_the_proxy_is_told_every_variable_its_caddyfile_reads() -> None:
    read = set(re.findall(r"\{\$([A-Za-z_][A-Za-z0-9_]*)", (DEPLOY / "Caddyfile").read_text()))
    services = compose("compose.yaml")["services"]
    proxy = next(s for s in services.values() if "Caddyfile" in " ".join(s.get("volumes", [])))
    assert read and read <= set(environment_of(proxy)), f"Caddy is not told {read}"
