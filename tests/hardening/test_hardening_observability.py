"""Request ids, JSON request logs and Prometheus metrics."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from cardroom.config import Settings
from cardroom.serve.app import create_app
from cardroom.store.embedded import free_port

from gunicorns import start_gunicorn, stop_gunicorn
from helpers import auth, create_game, join_all

ROUTE_VIEW = "/v1/games/<game_id>/view"


METRICS_PORT = 9464  # the test client's requests name the port; nothing is bound


@pytest.fixture(scope="module")
def logged_app(settings: Settings):
    return create_app(
        Settings.from_env(
            redis_url=settings.redis_url,
            log_level="info",
            request_log="all",
            metrics_bind=f"127.0.0.1:{METRICS_PORT}",
        )
    )


def log_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_a_sane_request_id_is_kept_and_returned_everywhere(client):
    response = client.get("/v1/games/nosuchgame", headers={"X-Request-ID": "trace-42.a:b_c"})
    assert response.status_code == 404
    assert response.headers["X-Request-ID"] == "trace-42.a:b_c"
    assert response.get_json()["request_id"] == "trace-42.a:b_c"


@pytest.mark.parametrize("incoming", [None, "", "x" * 129, "two words", "semi;colon", "ü"])
def test_a_missing_or_insane_request_id_is_replaced_by_a_fresh_one(client, incoming):
    headers = {} if incoming is None else {"X-Request-ID": incoming}
    first = client.get("/v1/games/nosuchgame", headers=headers)
    second = client.get("/v1/games/nosuchgame", headers=headers)
    ids = [first.headers["X-Request-ID"], second.headers["X-Request-ID"]]
    assert ids[0] != ids[1] and incoming not in ids
    assert all(len(value) == 32 and int(value, 16) >= 0 for value in ids)
    assert first.get_json()["request_id"] == ids[0]


def test_each_request_is_one_json_log_line_without_raw_paths_or_tokens(logged_app, capsys):
    client = logged_app.test_client()
    game = create_game(client, "exact-plays", 2)
    tokens = join_all(client, game)
    capsys.readouterr()
    response = client.get(
        f"/v1/games/{game['id']}/view?secret=query",
        headers={**auth(tokens[0]), "X-Request-ID": "find-me"},
    )
    assert response.status_code == 200
    client.get("/v1/games/nosuchgame/view", headers=auth(tokens[1]))
    written = capsys.readouterr().err
    lines = log_lines(written)
    [line] = [line for line in lines if line.get("request_id") == "find-me"]
    assert line["logger"] == "cardroom.access" and line["level"] == "info"
    assert line["method"] == "GET" and line["status"] == 200
    assert line["path"] == ROUTE_VIEW, "the route template, not the raw path"
    assert line["game_id"] == game["id"]
    assert isinstance(line["duration_ms"], float) and line["duration_ms"] >= 0
    assert line["ts"].endswith("+00:00")
    assert "secret=query" not in written
    assert not [token for token in tokens.values() if token in written], "a token was logged"
    assert "Bearer" not in written and "Authorization" not in written


def metric(app_or_text: Any, name: str, **labels: str) -> float:
    text = app_or_text
    if not isinstance(app_or_text, str):
        response = app_or_text.test_client().get(
            "/metrics", base_url=f"http://localhost:{METRICS_PORT}"
        )
        assert response.status_code == 200
        assert response.mimetype == "text/plain"
        text = response.get_data(as_text=True)
    total = 0.0
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                total += sample.value
    return total


def test_metrics_count_requests_latency_actions_and_redis_errors(logged_app):
    client = logged_app.test_client()
    view = {"method": "GET", "route": ROUTE_VIEW, "status": "200"}
    requests_before = metric(logged_app, "cardroom_http_requests_total", **view)
    latency_before = metric(logged_app, "cardroom_http_request_duration_seconds_count", **view)
    unmatched_before = metric(logged_app, "cardroom_http_requests_total", route="<unmatched>")
    actions_before = metric(logged_app, "cardroom_actions_accepted_total", game_type="exact-plays")
    errors_before = metric(logged_app, "cardroom_redis_errors_total", error="ConnectionError")

    game = create_game(client, "exact-plays", 2)
    tokens = join_all(client, game)
    for _ in range(3):
        assert client.get(f"/v1/games/{game['id']}/view").status_code == 200
    assert client.get("/v1/no/such/route/42").status_code == 404
    for seat in (0, 1):
        for _ in range(2):  # the second is an idempotent replay: not a new action
            answer = client.post(
                f"/v1/games/{game['id']}/actions",
                json={"type": "declare", "tokens": 2},
                headers={**auth(tokens[seat]), "Idempotency-Key": f"m{seat}"},
            )
            assert answer.status_code == 200
    dead = create_app(Settings.from_env(redis_url=f"redis://127.0.0.1:{free_port()}/0"))
    assert dead.test_client().get("/v1/games/x").status_code == 503

    assert metric(logged_app, "cardroom_http_requests_total", **view) == requests_before + 3
    assert (
        metric(logged_app, "cardroom_http_request_duration_seconds_count", **view)
        == latency_before + 3
    )
    unmatched = metric(logged_app, "cardroom_http_requests_total", route="<unmatched>")
    assert unmatched == unmatched_before + 1, "unknown paths share one label"
    assert (
        metric(logged_app, "cardroom_actions_accepted_total", game_type="exact-plays")
        == actions_before + 2
    )
    assert (
        metric(logged_app, "cardroom_redis_errors_total", error="ConnectionError")
        == errors_before + 1
    )
    metrics_page = logged_app.test_client().get(
        "/metrics", base_url=f"http://localhost:{METRICS_PORT}"
    )
    assert game["id"] not in metrics_page.get_data(as_text=True)


def test_metrics_are_served_on_their_own_port_only(logged_app, client):
    on_api_port = logged_app.test_client().get("/metrics")
    assert on_api_port.status_code == 404, "never on the API's port"
    assert client.get("/metrics").status_code == 404, "nowhere without CARDROOM_METRICS_BIND"
    metrics_port = f"http://localhost:{METRICS_PORT}"
    other = logged_app.test_client().get("/v1/game-types", base_url=metrics_port)
    assert other.status_code == 404, "the metrics port serves no API"
    health = logged_app.test_client().get("/healthz", base_url=metrics_port)
    assert health.status_code == 200


@pytest.fixture(scope="module")
def metrics_server(redis_server) -> Iterator[tuple[str, str]]:
    """gunicorn (2 workers) with /metrics on a port of its own: (API URL, metrics URL)."""
    port, metrics = free_port(), free_port()
    process = start_gunicorn(redis_server.url, port, CARDROOM_METRICS_BIND=f"127.0.0.1:{metrics}")
    try:
        yield f"http://127.0.0.1:{port}", f"http://127.0.0.1:{metrics}"
    finally:
        stop_gunicorn(process)


def test_metrics_add_up_across_gunicorn_workers(metrics_server):
    """Two workers: /metrics on either one counts the requests of both."""
    live_server, metrics_url = metrics_server
    assert requests.get(f"{live_server}/metrics", timeout=10).status_code == 404

    def scrape() -> float:
        text = requests.get(f"{metrics_url}/metrics", timeout=10).text
        return metric(
            text,
            "cardroom_http_requests_total",
            method="GET",
            route="/v1/game-types",
            status="200",
        )

    before = scrape()
    sent = 40
    for _ in range(sent):  # a new connection each time: the workers share them out
        response = requests.get(
            f"{live_server}/v1/game-types", headers={"Connection": "close"}, timeout=10
        )
        assert response.status_code == 200
    assert scrape() == before + sent


def test_by_default_only_failed_or_slow_requests_are_logged(settings, capsys):
    """CARDROOM_REQUEST_LOG=errors (the default): a 4xx/5xx gets its line, a 200 does not."""
    quiet = create_app(Settings.from_env(redis_url=settings.redis_url, log_level="info"))
    assert quiet.config["CARDROOM_SETTINGS"].request_log == "errors"
    client = quiet.test_client()
    game = create_game(client, "mr-toast", 2)
    capsys.readouterr()
    assert (
        client.get(f"/v1/games/{game['id']}", headers={"X-Request-ID": "ok-1"}).status_code == 200
    )
    assert (
        client.get("/v1/games/nosuchgame", headers={"X-Request-ID": "missing-1"}).status_code == 404
    )
    lines = log_lines(capsys.readouterr().err)
    assert [line["request_id"] for line in lines if line["logger"] == "cardroom.access"] == [
        "missing-1"
    ]


@pytest.mark.parametrize(
    ("raw", "mode"),
    [("on", "all"), ("all", "all"), ("errors", "errors"), ("off", "off"), ("false", "off")],
)
def test_the_request_log_setting_takes_modes_and_the_old_on_off(monkeypatch, raw, mode):
    monkeypatch.setenv("CARDROOM_REQUEST_LOG", raw)
    assert Settings.from_env().request_log == mode
