"""The tickets, in memory."""

from dataclasses import dataclass


@dataclass
class Ticket:
    number: int
    title: str
    status: str = "open"


def initial_tickets() -> dict[int, Ticket]:
    return {101: Ticket(101, "Printer on floor 2 jams"), 102: Ticket(102, "VPN drops")}
