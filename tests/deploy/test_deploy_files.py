"""deploy/: every file is checked with the tool that can run here (Docker's engine cannot):
nginx's own config test, hadolint on the Dockerfiles the compose files build, and the
Compose Specification's JSON schema (check-jsonschema's vendored copy) plus what the docs
promise of each compose file."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from cardroom.store.connection import parse_redis_url
from cardroom.store.embedded import free_port

from deploy_kit import DEPLOY, ROOT, nginx_binary, write_configs

COMPOSE_FILES = [DEPLOY / "compose.yaml", DEPLOY / "compose.single.yaml"]


def compose(path: Path) -> dict:
    return yaml.safe_load(path.read_text())


def check_compose_schema(*paths: Path) -> subprocess.CompletedProcess[str]:
    tool = Path(sys.executable).with_name("check-jsonschema")
    return subprocess.run(
        [str(tool), "--builtin-schema", "vendor.compose-spec", *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_shipped_nginx_config_passes_nginx_t(tmp_path):
    conf = write_configs(tmp_path, api_port=free_port(), listen_port=free_port())
    tested = subprocess.run(
        [nginx_binary(), "-t", "-c", str(conf), "-e", str(tmp_path / "error.log")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert tested.returncode == 0, tested.stderr
    assert "test is successful" in tested.stderr


def test_the_compose_files_match_the_compose_specification(tmp_path):
    checked = check_compose_schema(*COMPOSE_FILES)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # The check has teeth: a misspelt key and a condition Compose does not know fail.
    broken = tmp_path / "broken.yaml"
    text = COMPOSE_FILES[0].read_text()
    broken.write_text(
        text.replace("expose:", "expos:").replace("service_completed_successfully", "service_done")
    )
    refused = check_compose_schema(broken)
    assert refused.returncode != 0
    assert "'expos'" in refused.stdout and "service_done" in refused.stdout


@pytest.mark.parametrize("path", COMPOSE_FILES, ids=lambda path: path.name)
def test_each_compose_file_runs_replicas_behind_the_proxy_with_health_checks(path):
    services = compose(path)["services"]
    api, proxy = services["api"], services["proxy"]
    assert api["deploy"]["replicas"] >= 2
    assert (path.parent / api["build"]["context"] / api["build"]["dockerfile"]).is_file()
    assert api["environment"]["CARDROOM_TRUSTED_PROXIES"] == "1", "nginx appends the address"
    assert proxy["depends_on"]["api"]["condition"] == "service_healthy"
    mounted = {volume.split(":")[1]: volume.split(":")[0] for volume in proxy["volumes"]}
    assert (path.parent / mounted["/etc/nginx/conf.d/default.conf"]).resolve() == (
        DEPLOY / "nginx" / "cardroom.conf"
    )
    for name, service in services.items():
        if service["restart"] != "no":  # all but the one-shot cluster set-up
            assert service["restart"] == "unless-stopped"
            assert "healthcheck" in service, f"{name} has no health check"
    target = parse_redis_url(api["environment"]["REDIS_URL"])  # a URL that can work
    for host, _ in target.nodes or [("redis", 6379)]:
        assert host in services, f"REDIS_URL names {host}, which the file does not run"


def test_the_cluster_compose_file_forms_a_cluster_before_the_api_starts():
    services = compose(DEPLOY / "compose.yaml")["services"]
    nodes = [name for name in services if name.startswith("redis-") and name[6:].isdigit()]
    assert len(nodes) == 6
    for name in nodes:
        assert "--cluster-enabled yes" in services[name]["command"]
        assert "--appendonly yes" in services[name]["command"]
    init = services["redis-cluster-init"]
    assert set(init["depends_on"]) == set(nodes)
    assert "--cluster-replicas 1" in init["command"]
    assert services["api"]["depends_on"]["redis-cluster-init"]["condition"] == (
        "service_completed_successfully"
    )
    assert parse_redis_url(services["api"]["environment"]["REDIS_URL"]).cluster


def test_the_single_redis_compose_file_keeps_an_append_only_file():
    redis_service = compose(DEPLOY / "compose.single.yaml")["services"]["redis"]
    assert redis_service["command"][redis_service["command"].index("--appendonly") + 1] == "yes"
    assert redis_service["volumes"] == ["redis:/data"]


def test_the_dockerfiles_the_compose_files_build_pass_hadolint():
    hadolint = shutil.which("hadolint") or str(Path(sys.executable).with_name("hadolint"))
    built = {
        (path.parent / service["build"]["context"] / service["build"]["dockerfile"]).resolve()
        for path in COMPOSE_FILES
        for service in compose(path)["services"].values()
        if "build" in service
    }
    assert built == {ROOT / "Dockerfile"}
    for dockerfile in built:
        linted = subprocess.run(
            [hadolint, str(dockerfile)], capture_output=True, text=True, timeout=60, check=False
        )
        assert linted.returncode == 0, linted.stdout + linted.stderr
