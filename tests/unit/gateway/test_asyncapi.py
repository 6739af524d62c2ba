"""The pipeline's AsyncAPI document: the gateway serves it at ``/asyncapi`` without a key (like
``/openapi.json``); it has every topic of ``shared/topics.py`` with the event model of
``shared/events.py`` it carries, and every channel the stage services' real brokers declare."""
from __future__ import annotations

import inspect
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel

from shared import events, registry_change, topic_events, topics
from shared.asyncapi import CHANNELS, asyncapi_schema
from tests.unit.gateway.test_gateway_contract import Gateway


def event_models() -> set[str]:
    """Names of the event models defined in ``shared/events.py`` (``EventBase`` is only their
    common fields: no topic carries it as such) and ``shared/registry_change.py``."""
    return {name for module in (events, registry_change) for name, obj in vars(module).items()
            if inspect.isclass(obj) and issubclass(obj, BaseModel) and obj.__module__ == module.__name__
            and obj is not events.EventBase}


def operations(doc: dict[str, Any]) -> set[tuple[str, str, str]]:
    """``(action, topic, payload model)`` of every operation of an AsyncAPI 3.0 document."""
    out = set()
    for op in doc["operations"].values():
        channel = doc["channels"][op["channel"]["$ref"].split("/")[-1].replace("%7B", "{").replace("%7D", "}")]
        for ref in channel["messages"].values():
            message = doc["components"]["messages"][ref["$ref"].split("/")[-1].replace("%7B", "{").replace("%7D", "}")]
            payload = message["payload"]
            name = payload.get("$ref", "").split("/")[-1] or payload.get("title", "")
            out.add((op["action"], channel["address"], name))
    return out


@pytest.fixture
def served() -> dict[str, Any]:
    resp = TestClient(Gateway().app).get("/asyncapi")  # no key: open like /openapi.json
    assert resp.status_code == 200 and resp.headers["content-type"] == "application/json"
    doc: dict[str, Any] = resp.json()
    return doc


def test_served_document_has_every_topic_and_event_model(served: dict[str, Any]) -> None:
    assert served["asyncapi"] == "3.0.0"
    addresses = {c["address"] for c in served["channels"].values()}
    assert addresses == set(topics.ALL_TOPICS)
    models = event_models()
    assert len(models) == 17
    assert models <= set(served["components"]["schemas"])
    ops = operations(served)
    for topic in topics.ALL_TOPICS:  # each topic is published and read, with its own model
        model = topic_events.TOPIC_EVENTS[topic].__name__
        assert ("send", topic, model) in ops and ("receive", topic, model) in ops, topic
    assert {m for _, _, m in ops} == models
    schema = served["components"]["schemas"]["DocumentUploaded"]
    assert {"document_id", "department", "object_key", "sha256"} <= set(schema["properties"])


def test_the_declaration_covers_every_topic_once() -> None:
    assert sorted(c.topic for c in CHANNELS) == sorted(topics.ALL_TOPICS)
    assert set(topic_events.TOPIC_EVENTS) == set(topics.ALL_TOPICS)


def test_the_stage_services_declare_nothing_the_document_lacks() -> None:
    """FastStream's document of each stage service's real broker (its subscribers' handler
    signatures, its publishers' schemas): every operation is in the pipeline document."""
    from faststream.specification import AsyncAPI

    from services.embedder import main as embedder
    from services.parser import main as parser
    from services.splitter import main as splitter
    from services.tables import main as tables

    pipeline = operations(asyncapi_schema())
    seen = 0
    for service in (parser, tables, splitter, embedder):
        real = operations(AsyncAPI(service.stage.broker).to_specification().to_jsonable())
        assert real, service.__name__
        assert real <= pipeline, (service.__name__, real - pipeline)
        seen += len(real)
    assert seen >= 20  # 4 stages × (progress, dead letter, output, input) and the table stage's own topics
