"""A game's options, declared once (``OptionSpec``): described for clients (``GET
/v1/game-types``), checked by ``Game.validate_options`` (``check_value``), and, for a secret one
(a stacked deck), shown to seats as ``STACKED`` until the game ends."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardroom.kit import clock as clockmod
from cardroom.kit.errors import InvalidOptions


@dataclass(frozen=True)
class OptionSpec:
    """One game option, described for clients (``GET /v1/game-types``) and validated here."""

    name: str
    type: str  # "integer", "boolean", "string", "number", "array", "object"
    default: Any
    description: str
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    nullable: bool = False
    # A secret option (a stacked deck) is shown as "stacked" to players until the game ends.
    secret: bool = False
    # For an array: the JSON Schema of an item (for the API document).
    items: dict[str, Any] | None = None

    def describe(self) -> dict[str, Any]:
        described: dict[str, Any] = {
            "name": self.name,
            "type": self.type,
            "default": self.default,
            "description": self.description,
            "nullable": self.nullable,
            "secret": self.secret,
        }
        if self.choices is not None:
            described["choices"] = list(self.choices)
        if self.minimum is not None:
            described["minimum"] = self.minimum
        if self.maximum is not None:
            described["maximum"] = self.maximum
        return described


# The turn clock's options (kit/clock.py), which every game lists after its own.
CLOCK_SPECS: tuple[OptionSpec, ...] = tuple(
    OptionSpec(name, kind, default, description, **more)
    for name, kind, default, description, more in clockmod.CLOCK_OPTION_DOCS
)


# What a secret option that is set reads as, to every seat, until the game ends.
STACKED = "stacked"

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "string": (str,),
    "array": (list,),
    "object": (dict,),
}


def check_value(spec: OptionSpec, value: Any) -> None:
    where = f"options.{spec.name}"
    allowed = _JSON_TYPES[spec.type]
    if isinstance(value, bool) and bool not in allowed:
        raise InvalidOptions(f"{spec.name} must be of type {spec.type}", field=where)
    if not isinstance(value, allowed):
        raise InvalidOptions(f"{spec.name} must be of type {spec.type}", field=where)
    if spec.choices is not None and value not in spec.choices:
        choices = ", ".join(repr(choice) for choice in spec.choices)
        raise InvalidOptions(f"{spec.name} must be one of {choices}", field=where)
    if spec.minimum is not None and value < spec.minimum:
        raise InvalidOptions(f"{spec.name} must be at least {spec.minimum}", field=where)
    if spec.maximum is not None and value > spec.maximum:
        raise InvalidOptions(f"{spec.name} must be at most {spec.maximum}", field=where)
