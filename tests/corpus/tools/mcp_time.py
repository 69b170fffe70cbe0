"""The tools of the reference MCP time server (``mcp-server-time``), written again.

``convert_time`` computes what the server computes: the time on a given day in one zone,
converted to another, with each side's offset, weekday and daylight-saving flag and the
difference between them. The server takes "today" from the clock; these tools take the
day of the recording (``RECORDING_DAY``), so the conversions reproduce the session while
``get_current_time`` (the clock itself) cannot. Errors are worded as the server's
framework words them ("Error executing tool ...").
"""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from execution_log import counted_tool

RECORDING_DAY = date(2026, 12, 1)


def zone(name: str, tool_name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"Error executing tool {tool_name}: Invalid timezone: {exc}") from exc


def describe(moment: datetime, zone_name: str) -> dict[str, object]:
    return {"timezone": zone_name, "datetime": moment.isoformat(timespec="seconds"),
            "day_of_week": moment.strftime("%A"), "is_dst": bool(moment.dst())}


def hours_text(difference: timedelta) -> str:
    """``+14.0h``, ``-8.0h``, ``+5.5h``, ``+5.75h``: as the server writes it."""
    hours = difference.total_seconds() / 3600
    if hours.is_integer():
        return f"{hours:+.1f}h"
    return f"{hours:+.2f}".rstrip("0").rstrip(".") + "h"


class TimeTools:
    """Current time and time-zone conversion."""

    @counted_tool(name="get_current_time")
    def get_current_time(self, timezone: str) -> str:
        """Get current time in a specific timezone."""
        tz = zone(timezone, "get_current_time")
        return json.dumps(describe(datetime.now(tz).replace(microsecond=0), timezone),
                          indent=2)

    @counted_tool(name="convert_time")
    def convert_time(self, source_timezone: str, time: str, target_timezone: str) -> str:
        """Convert a time (HH:MM, 24-hour) between timezones, on the recording's day."""
        source_tz = zone(source_timezone, "convert_time")
        target_tz = zone(target_timezone, "convert_time")
        try:
            clock = datetime.strptime(time, "%H:%M").time()
        except ValueError as exc:
            raise ValueError("Error executing tool convert_time: Invalid time format. "
                             "Expected HH:MM [24-hour format]") from exc
        source = datetime.combine(RECORDING_DAY, clock, tzinfo=source_tz)
        target = source.astimezone(target_tz)
        difference = (target.utcoffset() or timedelta()) - (source.utcoffset() or timedelta())
        return json.dumps({"source": describe(source, source_timezone),
                           "target": describe(target, target_timezone),
                           "time_difference": hours_text(difference)}, indent=2)
