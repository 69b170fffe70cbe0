"""The tools the support agent calls."""

from typing import Annotated, Literal

from agentforge_cli import P, tool
from helpdesk.store import Ticket, initial_tickets


class HelpdeskTools:
    """Look tickets up, open them and close them."""

    def __init__(self) -> None:
        self.tickets = initial_tickets()

    @tool(description="Show one ticket: its title and status.")
    def get_ticket(self, number: Annotated[int, P("The ticket number")]) -> str:
        ticket = self.tickets.get(number)
        return f"#{number}: not found" if ticket is None else (
            f"#{ticket.number} [{ticket.status}] {ticket.title}")

    @tool(description="Open a ticket; returns its number.")
    def open_ticket(self, title: Annotated[str, P("What is wrong, in one line")]) -> int:
        number = max(self.tickets, default=100) + 1
        self.tickets[number] = Ticket(number, title.strip() or "(no title)")
        return number

    @tool(description="Set a ticket's status.")
    def set_status(self, number: Annotated[int, P("The ticket number")],
                   status: Annotated[Literal["open", "waiting", "closed"],
                                     P("The new status")]) -> str:
        ticket = self.tickets.get(number)
        if ticket is None:
            return f"#{number}: not found"
        ticket.status = status
        return f"#{number} is {status}"
