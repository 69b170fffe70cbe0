"""The DevOps tools of docs/replay.md ("Volatile results: scrubbing"): each answer holds a
time, an id or a duration of its own run, as real tools' answers do."""

import json
import time
import uuid
from datetime import UTC, datetime

from agentforge_cli import tool


class OpsTools:
    """Logs and rollbacks of a deployment."""

    @tool
    def get_logs(self, service: str) -> str:
        """The latest log entry of a service."""
        now = datetime.now(UTC).isoformat(timespec="milliseconds")
        return json.dumps({"service": service, "request_id": str(uuid.uuid4()),
                           "entries": [{"time": now, "level": "info",
                                        "line": "deploy finished"}]})

    @tool(volatile=["$.operation_id", "durations"])
    def rollback(self, service: str, version: str) -> str:
        """Roll a service back to a version."""
        started = time.perf_counter()
        operation = f"op-{uuid.uuid4().hex[:8]}"
        took_ms = round((time.perf_counter() - started) * 1000, 3)
        return json.dumps({"operation_id": operation, "service": service,
                           "version": version, "status": "rolled_back", "took_ms": took_ms})
