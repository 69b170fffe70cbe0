"""Envelopes: records read from ``{"input": [...], "output": [...]}`` go back under the
key they came from, told by their position, not by the text of their place."""

from __future__ import annotations

from agentforge_cli.replay.transcripts.files.envelopes import (
    envelope_keys,
    envelope_records,
    envelope_values,
)
from agentforge_cli.replay.transcripts.files.records import Record
from agentforge_cli.replay.transcripts.place import WHOLE_FILE, Place

ENVELOPE = {"model": "m", "input": [{"role": "user", "content": "hi"},
                                    {"type": "function_call", "call_id": "a"}],
            "output": [{"type": "function_call_output", "call_id": "a", "output": "x"}]}


def test_each_record_goes_back_under_its_key_whatever_its_place_says():
    keys = envelope_keys(ENVELOPE)
    records = envelope_records(ENVELOPE, keys, Place(3))
    assert [record.where for record in records] == [
        Place(3, (("input", 0),)), Place(3, (("input", 1),)), Place(3, (("output", 0),))]
    assert str(records[2].where) == "line 3, output[0]"
    shown_elsewhere = [Record(record.data, WHOLE_FILE.at(f"shown as {i}"), record.position)
                       for i, record in enumerate(records)]
    assert envelope_values(ENVELOPE, keys, shown_elsewhere) == ENVELOPE


def test_a_new_record_joins_its_predecessors_key():
    keys = envelope_keys(ENVELOPE)
    first, second, third = envelope_records(ENVELOPE, keys)
    added = Record({"type": "function_call_output", "call_id": "b", "output": "y"})
    values = envelope_values(ENVELOPE, keys, [first, second, added, third])
    assert values["input"] == [first.data, second.data, added.data]
    assert values["output"] == [third.data]
    assert values["model"] == "m"
