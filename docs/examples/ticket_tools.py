"""A help-desk tool a model may call without its customer (docs/coercion.md)."""

from dataclasses import dataclass

from agentforge_cli import tool


@dataclass
class Customer:
    email: str
    name: str = ""


@tool
def create_ticket(subject: str, customer: Customer) -> str:
    """Open a support ticket for a customer."""
    return f"ticket for {customer.email}: {subject}"
