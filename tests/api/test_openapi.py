"""The committed spec is the served spec, valid OpenAPI 3, with offline Swagger UI."""

from __future__ import annotations

import json
from pathlib import Path

from openapi_spec_validator import validate

SPEC_FILE = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
REGENERATE = "cardroom openapi -o openapi/openapi.json"


def test_committed_spec_equals_the_served_one(client):
    served = client.get("/openapi.json").get_json()
    committed = json.loads(SPEC_FILE.read_text())
    assert committed == served, f"openapi/openapi.json is stale: run `{REGENERATE}`"


def test_spec_is_valid_openapi_3(client):
    spec = client.get("/openapi.json").get_json()
    assert spec["openapi"].startswith("3.")
    validate(spec)


def test_every_operation_documents_its_bodies_and_problems(client):
    spec = client.get("/openapi.json").get_json()
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            assert operation.get("summary") or operation.get("description"), (method, path)
            if method == "post":
                assert "requestBody" in operation, (method, path)
                assert "422" in operation["responses"], (method, path)


def test_swagger_ui_is_served_without_a_cdn(client):
    page = client.get("/docs")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "http://" not in html and "https://" not in html, "the UI must not load from a CDN"
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css", "swagger-ui-standalone-preset.js"):
        response = client.get(f"/docs/assets/{asset}")
        assert response.status_code == 200, asset
        assert len(response.get_data()) > 1000
