"""Machine-readable replay reports, written as calls settle: ``--json`` and ``--junit``.

Both keep each settled call in a spooled temporary file (memory for small reports, disk
for long ones) so a million-call replay needs no more memory than a short one, then
write the whole document with its summary first. No third-party imports.

JUnit: one ``testsuite`` per transcript, one ``testcase`` per call; ``matched`` passes,
``mismatched`` is a ``failure`` carrying the diff, ``unrecorded`` is ``skipped`` (there
is nothing to compare), ``drifted`` is a ``failure`` (type ``drift``) naming what no
longer fits, or, with ``--allow-drift``, a pass whose ``system-out`` says it. A replay
that found no tool call writes one failing ``no tool calls`` testcase instead (unless
``--allow-empty``: then the suite has no testcase), never an empty suite that passes.
Characters XML 1.0 cannot hold (control characters, lone surrogates) are written as
``\\uXXXX``.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree

if TYPE_CHECKING:
    from agentforge_cli.replay.report import CallStatus

from agentforge_cli.replay.report import CallReport, call_json

__all__ = ["JUnitReport", "JsonReport", "text_spool", "write_junit", "write_junit_text",
           "xml_text"]

_SPOOL_BYTES = 8 << 20
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def text_spool() -> Any:
    """A text file in memory while small, on disk once large (lone surrogates kept)."""
    return tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES, mode="w+", encoding="utf-8",
                                         errors="surrogatepass")


def _byte_spool() -> Any:
    return tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES, mode="w+b")


def _utf8_buffer(stream: Any) -> Any:
    """The binary buffer under a text ``stream`` that writes UTF-8 and translates no
    newlines, or ``None``: UTF-8 entries may then be copied to it as they are."""
    buffer = getattr(stream, "buffer", None)
    try:
        utf8 = codecs.lookup(getattr(stream, "encoding", None) or "").name == "utf-8"
    except LookupError:
        utf8 = False
    return buffer if utf8 and os.linesep == "\n" and hasattr(buffer, "write") else None


_string = json.encoder.encode_basestring  # json.dumps(ensure_ascii=False) of a str
_string_ascii = json.encoder.encode_basestring_ascii  # what json.dumps writes a str with
_BATCH = 1024


def _ascii_string(key: str) -> str:
    """``json.dumps(key)``, cheaper."""
    return _string_ascii(key) if type(key) is str else json.dumps(key)


def _json_value(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False)``, cheaper for a text."""
    return _string(value) if type(value) is str else json.dumps(value, ensure_ascii=False)


class JsonReport:
    """``{"summary": {...}, "calls": [{...}, ...], ...}`` — one call a line."""

    def __init__(self) -> None:
        self._calls: Any = None  # spooled once a batch is full: a short report never is
        self._count = 0
        self._batch: list[str] = []
        self._surrogates = False  # an entry holds a lone surrogate: written as text

    @property
    def calls(self) -> int:
        """How many calls were recorded so far."""
        return self._count + len(self._batch)

    def add_entry(self, entry: Any) -> None:
        """Record one settled entry of the replay, if it is a call."""
        if type(entry) is CallReport:
            batch = self._batch
            batch.append(call_json(entry))
            if len(batch) >= _BATCH:
                self._spool_batch()

    def _spool_batch(self) -> None:
        if self._batch:
            if self._calls is None:  # bytes: encoded once, copied out as they are
                self._calls = _byte_spool()
            text = (",\n    " if self._count else "    ") + ",\n    ".join(self._batch)
            try:
                data = text.encode("utf-8")
            except UnicodeEncodeError:
                data = text.encode("utf-8", "surrogatepass")
                self._surrogates = True
            self._calls.write(data)
            self._count += len(self._batch)
            self._batch.clear()

    def close(self) -> None:
        """Release what was recorded without writing it (the replay failed)."""
        self._batch.clear()
        if self._calls is not None:
            self._calls.close()

    def write(self, emit: Callable[[str], None], summary: dict[CallStatus, int],
              extra: dict[str, Any], *, end: str = "\n", stream: Any = None) -> None:
        """Send the document to ``emit`` in chunks, summary first, then ``extra`` keys,
        then ``end``. ``stream``: the text stream ``emit`` writes to as it is; when it
        writes UTF-8, the spooled entries are copied to its buffer as bytes (the same
        output, without decoding and encoding them again)."""
        head = '{\n  "summary": ' + json.dumps(summary) + ',\n  "calls": ['
        tail = "]" + "".join(f",\n  {_ascii_string(key)}: {_json_value(value)}"
                             for key, value in extra.items()) + "\n}" + end
        if self._calls is None:  # nothing spooled: the whole document in one piece
            calls = "\n    " + ",\n    ".join(self._batch) + "\n  " if self._batch else ""
            self._batch.clear()
            emit(head + calls + tail)
            return
        self._spool_batch()
        emit(head + "\n")
        self._calls.seek(0)
        buffer = None if self._surrogates else _utf8_buffer(stream)
        if buffer is not None:
            stream.flush()
            shutil.copyfileobj(self._calls, buffer, 1 << 20)
            buffer.flush()
        else:
            decode = codecs.getincrementaldecoder("utf-8")("surrogatepass").decode
            for chunk in iter(lambda: self._calls.read(1 << 16), b""):
                emit(decode(chunk))
            emit(decode(b"", final=True))
        emit("\n  " + tail)
        self._calls.close()


def xml_text(text: str) -> str:
    """``text`` with the characters XML 1.0 cannot hold written as ``\\uXXXX``."""
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class JUnitReport:
    """A JUnit XML test suite named after the transcript, one ``testcase`` per call."""

    def __init__(self, name: str, *, allow_drift: bool = False) -> None:
        self.name = name
        self.allow_drift = allow_drift
        self._cases = text_spool()
        self._tests = self._failures = self._skipped = 0
        self._seconds = 0.0

    def add(self, call: Any) -> None:
        """Record one settled call."""
        label = f"{call.id} {call.name}" if call.id else f"#{call.index + 1} {call.name}"
        case = ElementTree.Element("testcase", {
            "classname": xml_text(self.name),
            "name": xml_text(label),
            "time": f"{call.duration_ms / 1000:.6f}",
        })
        from agentforge_cli.replay.report import CallStatus

        if call.status == CallStatus.MISMATCHED:
            failure = ElementTree.SubElement(case, "failure", {
                "message": "result differs from the recording", "type": "mismatch"})
            scrubbed = [f"scrubbed: {', '.join(call.scrubbed)}"] if call.scrubbed else []
            failure.text = xml_text("\n".join([f"call at {call.where}", *scrubbed,
                                               *call.diff]))
            self._failures += 1
        elif call.status == CallStatus.UNRECORDED:
            ElementTree.SubElement(case, "skipped", {"message": "no recorded result"})
            self._skipped += 1
        elif call.status == CallStatus.DRIFTED and not self.allow_drift:
            failure = ElementTree.SubElement(case, "failure", {
                "message": "the recorded arguments no longer fit today's tool (not run)",
                "type": "drift"})
            failure.text = xml_text(f"call at {call.where}\n{call.drift}")
            self._failures += 1
        output = ElementTree.SubElement(case, "system-out")
        output.text = xml_text(call.actual if call.actual is not None else
                             f"drifted, not run (allowed): {call.drift}" if self.allow_drift
                             else f"drifted, not run: {call.drift}")
        ElementTree.indent(case, space="  ", level=2)
        self._cases.write("    " + ElementTree.tostring(case, encoding="unicode").rstrip()
                          + "\n")
        self._tests += 1
        self._seconds += call.duration_ms / 1000

    def add_entry(self, entry: Any) -> None:
        """Record one settled entry of the replay, if it is a call."""
        if type(entry) is CallReport:
            self.add(entry)

    def fail_suite(self, name: str, message: str) -> None:
        """Record one failing testcase that is no call: the replay itself failed."""
        case = ElementTree.Element("testcase", {"classname": xml_text(self.name),
                                                "name": xml_text(name), "time": "0.000000"})
        ElementTree.SubElement(case, "failure", {"message": xml_text(message), "type": "replay"})
        ElementTree.indent(case, space="  ", level=2)
        self._cases.write("    " + ElementTree.tostring(case, encoding="unicode").rstrip()
                          + "\n")
        self._tests += 1
        self._failures += 1

    def write(self, path: Path) -> None:
        """Write the XML document (this one suite) to ``path`` atomically."""
        write_junit(path, [self])

    def write_suite(self, stream: Any) -> None:
        """Write this ``<testsuite>`` element to ``stream`` (and release its spool)."""
        suite = ElementTree.Element("testsuite", {
            "name": xml_text(f"replay {self.name}"), "tests": str(self._tests),
            "failures": str(self._failures), "errors": "0", "skipped": str(self._skipped),
            "time": f"{self._seconds:.6f}"})
        opening = ElementTree.tostring(suite, encoding="unicode")
        opening = opening.replace(" />", ">") if opening.endswith(" />") else opening
        stream.write("  " + opening + "\n")
        self._cases.seek(0)
        shutil.copyfileobj(self._cases, stream)
        stream.write("  </testsuite>\n")

    def close(self) -> None:
        """Release the spooled testcases."""
        self._cases.close()


def write_junit(path: Path, reports: list[JUnitReport]) -> None:
    """Write one ``<testsuites>`` document, a suite per report, to ``path`` atomically
    (missing parent directories are created)."""
    from agentforge_cli.core.observe.fileio import atomic_writer

    try:
        with atomic_writer(path, newline="\n") as stream:
            stream.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n')
            for report in reports:
                report.write_suite(stream)
            stream.write("</testsuites>\n")
    finally:  # also when the file cannot be written: every spool is released
        for report in reports:
            report.close()


def write_junit_text(path: str, text: str) -> None:
    """Write a whole JUnit document to ``path`` atomically (missing parent directories are
    created).

    Raises:
        UsageError: The file cannot be written (exit 2), with the reason.
    """
    from agentforge_cli.cli.errors import UsageError
    from agentforge_cli.core.observe.fileio import write_text_atomic

    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(target, text)
    except OSError as exc:
        raise UsageError(f"cannot write the JUnit report {path!r}: {exc.strerror or exc}"
                         ) from None
