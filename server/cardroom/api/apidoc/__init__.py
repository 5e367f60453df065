"""The typed parts of the API document, generated from the game declarations.

- Components (``document.py``, each game's in ``game_parts.py``): each game's cards,
  actions (one schema per action type, from kit/moves.py: ``actions.py``), public view,
  private part, result, options and events (games/*/shapes.py), and the unions the endpoints
  use: ``Action`` (any game's action, told apart by ``type``), ``View`` (told apart by
  ``game_type``), ``Event`` (any game's event: two games may share an event type, so this
  union has no discriminator; each game's own ``<Game>Event`` has one), and a replay's events
  (``<Game>ReplayEvent``: unredacted, with ``private``).
- Envelopes (``envelope_schemas.py``): what the server builds around a game's parts (a view,
  an event, an action's answer, a page of events) is declared once, in table/envelopes.py,
  which shapes it too, and published with ``additionalProperties: false``.
- ``OperationDocs`` (``operations.py``), an apispec plugin: each view function carries its
  operation's docs in ``operation(...)`` marks (an attribute, no wrapper: nothing runs per
  request), and the plugin writes them into the document as flask-smorest registers the
  routes: operationId, headers read and sent, typed bodies, problem responses and
  problem+json as ``default``.
- The request bodies' examples (``examples.py``).

Action types of two games may share a name (``pass`` in a game to come, say). The body's
discriminator maps each name to one schema: a name of one game maps to that game's schema;
a name of several maps to a shared schema that is ``anyOf`` each game's form of it (the
server knows the game from the URL). See docs/api.md, "The API document".
"""

from cardroom.api.apidoc.document import (
    components,
    request_options,
    summary_options,
    summary_result,
)
from cardroom.api.apidoc.examples import action_examples, create_examples
from cardroom.api.apidoc.names import prefix
from cardroom.api.apidoc.operations import OperationDocs, operation

__all__ = [
    "OperationDocs",
    "action_examples",
    "components",
    "create_examples",
    "operation",
    "prefix",
    "request_options",
    "summary_options",
    "summary_result",
]
