"""The serializer graphs run by the playground use: an allowlist, never the permissive default."""

from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, TypedDict

import ormsgpack
from pydantic import BaseModel

from playground.serde import graph_serde, state_types
from tests.playground import hostile_db


class Colour(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Line:
    sku: str
    colour: Colour


class Order(BaseModel):
    id: str
    lines: list[Line]


class State(TypedDict, total=False):
    order: Order | None
    history: Annotated[list[Order], "a reducer"]
    note: str


def test_state_types_finds_classes_nested_in_the_schema():
    assert set(state_types(State)) == {Order, Line, Colour}


def test_graph_serde_round_trips_declared_types():
    serde = graph_serde(state_types(State))
    order = Order(id="o1", lines=[Line("sku-1", Colour.RED)])

    assert serde.loads_typed(serde.dumps_typed({"order": order})) == {"order": order}


def test_graph_serde_never_calls_what_an_undeclared_value_names(tmp_path):
    serde = graph_serde(state_types(State))

    for code in hostile_db.RUNNING_CODES:
        blob = ormsgpack.packb(hostile_db.ext_values(tmp_path)[f"ext{code}"])
        serde.loads_typed(("msgpack", blob))

    assert hostile_db.canaries(tmp_path) == []
