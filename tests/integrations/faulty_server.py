"""An MCP server in raw JSON-RPC over stdio that misbehaves on purpose, one way per mode:

``python faulty_server.py MODE``, MODE one of

* ``segv`` — every ``tools/call`` (of ``crash`` or ``after``) writes a line to stderr, then
  the process kills itself with SIGSEGV;
* ``exit139`` — the same, but it exits with status 139 (what a shell reports for a child
  killed by SIGSEGV);
* ``hang`` — ``tools/call`` is never answered;
* ``busy PIDFILE`` — ``tools/call`` writes the server's pid to PIDFILE, then sleeps two
  minutes without reading its input (a server busy in a call);
* ``strict`` — ``limit`` is refused above 10 although the schema allows any integer:
  JSON-RPC -32602 on ``tools/call`` for ``rpc``, an ``isError`` result saying "validation
  error" for ``pydantic`` (as FastMCP words it), and "Invalid arguments" for ``invalid``;
  ``lookup`` says "no such item" (a tool error, not a mismatch) for any ``key``;
* ``annotations`` — tools with every kind of annotation, and none;
* ``duplicate`` — two tools named ``twice``;
* ``paging`` — ``tools/list`` answers with a ``nextCursor`` forever;
* ``huge`` — ``flood`` answers with a text of ``{"size": N}`` characters;
* ``badschema`` — beside ``fine``, a tool whose ``inputSchema`` is an array schema
  (``listish``) and one with no name;
* ``tasks`` — ``background`` must be called as a task (``execution.taskSupport:
  "required"``: called without one it is refused with -32601, as the protocol says),
  ``either`` may be (``"optional"``) and ``plain`` declares nothing;
* ``clients`` — what MCP clients break on and the protocol allows: ``a.b`` and ``a_b``
  (one name once a client turns ``.`` into ``_``), ``pick`` (an object input schema
  with a top-level ``anyOf``) and ``report`` (a draft-07 ``outputSchema``);
* ``defaults`` — ``brew``'s schema gives ``size`` a default outside its enum and
  ``shots`` one below its minimum;
* ``mute`` — a server of the initialize handshake that leaves any other request before
  it unanswered (``server/discover``, say); one tool, ``fine``.

Each request line gets at most one answer line; ``initialize`` records the client's
``clientInfo`` on stderr (``client: NAME VERSION``).
"""

import json
import os
import signal
import sys
import time

MODE = sys.argv[1]
_LIMIT = {"type": "object", "properties": {"limit": {"type": "integer"}},
          "required": ["limit"]}
_NOTHING = {"type": "object", "properties": {}}


def _tool(name, schema=_NOTHING, **annotations):
    tool = {"name": name, "description": f"The {name} tool.", "inputSchema": schema}
    if annotations:
        tool["annotations"] = annotations
    return tool


TOOLS = {
    "segv": [_tool("crash", _LIMIT, readOnlyHint=True), _tool("after", readOnlyHint=True)],
    "exit139": [_tool("crash", _LIMIT, readOnlyHint=True)],
    "hang": [_tool("stall", _LIMIT, readOnlyHint=True)],
    "busy": [_tool("work", readOnlyHint=True)],
    "strict": [_tool(name, _LIMIT, readOnlyHint=True) for name in ("rpc", "pydantic",
                                                                   "invalid")]
    + [_tool("lookup", {"type": "object", "properties": {"key": {"type": "string"}},
                        "required": ["key"]}, readOnlyHint=True)],
    "annotations": [
        _tool("bare"),
        _tool("reader", readOnlyHint=True),
        _tool("closed", destructiveHint=False, openWorldHint=False),
        _tool("additive", destructiveHint=False),
        _tool("browser", readOnlyHint=True, openWorldHint=True),
        _tool("wiper", destructiveHint=True, openWorldHint=False),
    ],
    "duplicate": [_tool("twice"), _tool("once"), _tool("twice")],
    "paging": [_tool("fine", readOnlyHint=True)],
    "huge": [_tool("flood", {"type": "object", "properties": {"size": {"type": "integer"}}},
                   readOnlyHint=True)],
    "badschema": [_tool("fine", readOnlyHint=True),
                  _tool("listish", {"type": "array", "items": {"type": "string"}}),
                  {"description": "A tool without a name.", "inputSchema": _NOTHING}],
    "tasks": [{**_tool("background", readOnlyHint=True),
               "execution": {"taskSupport": "required"}},
              {**_tool("either", readOnlyHint=True), "execution": {"taskSupport": "optional"}},
              _tool("plain", readOnlyHint=True)],
    "clients": [_tool("a.b", readOnlyHint=True), _tool("a_b", readOnlyHint=True),
                _tool("pick", {"type": "object",
                               "properties": {"id": {"type": "string"},
                                              "name": {"type": "string"}},
                               "anyOf": [{"required": ["id"]}, {"required": ["name"]}]},
                      readOnlyHint=True),
                {**_tool("report", readOnlyHint=True), "outputSchema": {
                    "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                    "properties": {"n": {"type": "integer"}}}}],
    "defaults": [_tool("brew", {"type": "object", "properties": {
        "size": {"type": "string", "enum": ["small", "large"], "default": "huge",
                 "description": "The cup."},
        "shots": {"type": "integer", "minimum": 1, "default": 0,
                  "description": "Espresso shots."}}}, readOnlyHint=True)],
    "mute": [_tool("fine", readOnlyHint=True)],
}
_INITIALIZED = []  # ``mute``: whether initialize came


def _text(text, is_error=False):
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


def _die(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
    if MODE == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    os._exit(139)


def _call(params):
    name, arguments = params.get("name"), params.get("arguments") or {}
    if MODE in ("segv", "exit139"):
        _die("fatal: null pointer in crash()")
    if MODE == "hang":
        return None
    if MODE == "busy":
        with open(sys.argv[2], "w") as pidfile:
            pidfile.write(str(os.getpid()))
        time.sleep(120)
    if MODE == "tasks" and name == "background":
        return {"error": {"code": -32601, "message": "background must be called as a task"}}
    if MODE == "huge":
        return {"result": _text("x" * int(arguments.get("size", 0)))}
    if MODE == "strict" and name == "lookup":
        return {"result": _text(f"no such item: {arguments.get('key')!r}", True)}
    limit = arguments.get("limit")
    if MODE == "strict" and isinstance(limit, int) and limit > 10:
        if name == "rpc":
            return {"error": {"code": -32602, "message": "limit must be at most 10"}}
        if name == "pydantic":
            return {"result": _text(f"1 validation error for {name}Arguments\nlimit\n  "
                                    "Input should be less than or equal to 10", True)}
        return {"result": _text("Invalid arguments: limit must be at most 10", True)}
    return {"result": _text("ok")}


def _answer(request):
    method, params = request.get("method"), request.get("params") or {}
    if MODE == "mute" and method != "initialize" and not _INITIALIZED:
        return None
    if method == "initialize":
        _INITIALIZED.append(True)
        client = params.get("clientInfo") or {}
        sys.stderr.write(f"client: {client.get('name')} {client.get('version')}\n")
        sys.stderr.flush()
        return {"result": {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                           "capabilities": {"tools": {}},
                           "serverInfo": {"name": "faulty", "version": "0"}}}
    if method == "tools/list":
        page = {"tools": TOOLS[MODE]}
        if MODE == "paging":
            page["nextCursor"] = str(int(params.get("cursor") or 0) + 1)
        return {"result": page}
    if method == "tools/call":
        return _call(params)
    if method == "ping":
        return {"result": {}}
    return {"error": {"code": -32601, "message": f"no method {method}"}}


def main():
    for line in sys.stdin:
        request = json.loads(line)
        if "id" not in request:
            continue  # a notification
        answer = _answer(request)
        if answer is not None:
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request["id"], **answer})
                             + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
