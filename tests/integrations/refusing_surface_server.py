"""An MCP server in raw JSON-RPC over stdio (the initialize handshake) that declares the
``prompts`` capability and refuses ``prompts/list`` (-32603), with one tool, ``fine``."""

import json
import sys

TOOL = {"name": "fine", "description": "The fine tool.",
        "inputSchema": {"type": "object", "properties": {}}}

for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        answer = {"result": {"protocolVersion": message["params"]["protocolVersion"],
                             "capabilities": {"tools": {}, "prompts": {}},
                             "serverInfo": {"name": "refusing", "version": "1"}}}
    elif method == "tools/list":
        answer = {"result": {"tools": [TOOL]}}
    elif method == "prompts/list":
        answer = {"error": {"code": -32603, "message": "the prompt store is down"}}
    else:
        answer = {"error": {"code": -32601, "message": f"no method {method}"}}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], **answer}) + "\n")
    sys.stdout.flush()
