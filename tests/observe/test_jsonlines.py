"""The run log's and the restart log's records (engine/observe/jsonlines.py): compact JSON
lines that read back as what was written, also for text msgspec refuses."""

from __future__ import annotations

import json
import os

from engine.observe.jsonlines import json_line


def test_a_record_is_one_compact_line_that_reads_back_whole() -> None:
    record = {"event": "end", "task": 7, "time": 1795786105.611006, "label": "blast ✓",
              "digests": {"out/hits.tsv": "blake3:00ff"}, "command": ["cp", "a b", ""], "big": 2**70}
    line = json_line(record)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == record
    assert b", " not in line and b": " not in line


def test_a_name_that_is_not_utf8_is_escaped_and_reads_back_as_given() -> None:
    name = os.fsdecode(b"data/\xff.dat")  # a lone surrogate, which msgspec refuses
    line = json_line({"path": name})
    assert json.loads(line) == {"path": name}
