"""A tool that reaches the outside world, kept so that the effect guard of
``agentforge tools fuzz`` has something real to stop (docs/fuzz.md).

``notifyTeam`` posts a message to a team chat's webhook: fuzzed for real, it would post
hundreds of made-up messages. Under ``tools fuzz`` its connection is refused before it is
made, and each call is reported as a blocked effect.

    agentforge tools fuzz sample_tools.notify --seed 0 --examples 20
"""

import http.client
import json
from typing import Annotated

from agentforge_cli import P, tool

WEBHOOK_HOST = "192.0.2.10"
"""An address reserved for documentation (TEST-NET-1): nothing answers there."""


@tool(name="notifyTeam", description="Post a message to the team's chat channel")
def notifyTeam(message: Annotated[str, P("The text to post")]) -> str:
    connection = http.client.HTTPConnection(WEBHOOK_HOST, 80, timeout=5)
    try:
        connection.request("POST", "/hooks/team", body=json.dumps({"text": message}),
                           headers={"Content-Type": "application/json"})
        return f"posted (HTTP {connection.getresponse().status})"
    finally:
        connection.close()
