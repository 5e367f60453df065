"""Health, problem-type pages and the offline Swagger UI assets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import flask_swagger_ui
from flask import Blueprint as FlaskBlueprint
from flask import current_app, send_from_directory
from flask.views import MethodView
from flask_smorest import Blueprint

from cardroom.api.apidoc import operation
from cardroom.api.problems import PROBLEM_TYPES, problem
from cardroom.api.schemas import HealthSchema

blp = Blueprint("system", __name__, description="Health and problem types.")

# Swagger UI's JavaScript and CSS (Swagger UI 5, which reads OpenAPI 3.1, as the package
# flask-swagger-ui ships it), served by the app itself: the container works offline.
SWAGGER_UI_DIST = Path(flask_swagger_ui.__file__).resolve().parent / "dist"
assets = FlaskBlueprint("swagger_assets", __name__)


@assets.route("/docs/assets/<path:filename>")
def swagger_asset(filename: str) -> Any:
    return send_from_directory(SWAGGER_UI_DIST, filename, max_age=24 * 3600)


@blp.route("/healthz")
class Health(MethodView):
    @blp.response(200, HealthSchema)
    @blp.alt_response(
        503,
        schema=HealthSchema,
        description="Redis cannot be reached, or its cluster is down; retry after Retry-After.",
        headers={"Retry-After": {"$ref": "#/components/headers/Retry-After"}},
    )
    @operation(operation_id="getHealth")
    def get(self) -> Any:
        """200 once the server can serve: Redis answers. On a Redis Cluster, `cluster` tells
        what its primaries say: `ok` when every one answers and reports `cluster_state:ok`;
        `degraded` (still 200) when one does not answer and the others say ok."""
        health = current_app.extensions["cardroom.tables"].storage_health()
        if "error" in health:
            body = {"status": "unavailable", "redis": health["error"]}
            return body, 503, {"Retry-After": "2"}
        cluster = health.get("cluster")
        if cluster is None:
            return {"status": "ok", "redis": "ok"}
        if cluster["state"] == "ok":
            return {"status": "ok", "redis": "ok", "cluster": cluster}
        if cluster["state"] == "degraded":
            # The games on the primaries that answer can be served: stay in the balancer.
            return {"status": "degraded", "redis": "cluster degraded", "cluster": cluster}
        body = {"status": "unavailable", "redis": f"cluster {cluster['state']}"}
        return {**body, "cluster": cluster}, 503, {"Retry-After": "2"}


@blp.route("/problems/<slug>")
class ProblemType(MethodView):
    @blp.response(200, content_type="text/plain")
    @operation(operation_id="getProblemType", problems=(404,))
    def get(self, slug: str) -> Any:
        """What a problem `type` means."""
        if slug not in PROBLEM_TYPES:
            return problem(404, "not-found", f"no problem type {slug!r}")
        title, text = PROBLEM_TYPES[slug]
        return current_app.response_class(f"{title}\n\n{text}\n", mimetype="text/plain")
