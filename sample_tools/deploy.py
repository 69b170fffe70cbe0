"""Deployments of a small fleet, kept in memory: the README tour's English example.

``rollback`` answers with an operation id and a time of its own run, as real deployment
tools do; it declares them volatile, so a replay compares everything else.
"""

import uuid
from datetime import UTC, datetime
from typing import Annotated, Literal

from agentforge_cli import P, tool


class DeployTools:
    """Status and rollbacks of the services of one environment."""

    def __init__(self) -> None:
        self.versions = {"api": "1.4.2", "web": "2.0.1", "worker": "0.9.7"}

    @tool
    def service_status(
        self,
        service: Annotated[str, P("the service's name, e.g. 'api'")],
        env: Annotated[Literal["staging", "prod"], P("which environment")] = "prod",
    ) -> dict[str, str]:
        """Which version of a service is running."""
        if service not in self.versions:
            raise ValueError(f"unknown service {service!r}; known: {', '.join(self.versions)}")
        return {"service": service, "env": env, "version": self.versions[service]}

    @tool(volatile=["$.operation_id", "$.started_at"])
    def rollback(
        self,
        service: Annotated[str, P("the service's name, e.g. 'api'")],
        to_version: Annotated[str, P("the version to go back to, e.g. '1.4.1'")],
        dry_run: Annotated[bool, P("only say what would happen")] = False,
    ) -> dict[str, object]:
        """Roll a service back to an earlier version."""
        current = self.service_status(service)["version"]
        if not dry_run:
            self.versions[service] = to_version
        return {"operation_id": str(uuid.uuid4()), "service": service, "from": current,
                "to": to_version, "dry_run": dry_run,
                "started_at": datetime.now(UTC).isoformat(timespec="seconds")}
