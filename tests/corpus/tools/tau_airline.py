"""tau-bench's airline tools, written again over its database, for the ``tau-airline``
trajectories.

The database (``flights``, ``reservations``, ``users``) is read at run time from the
corpus folder, ``$AGENTFORGE_CORPUS/tau-airline/data`` (default ``../shared/corpus``
from the repository root); it is never copied into the repository. The tools are
stateful (a booking, a cancellation, a new certificate change the data) and each
trajectory starts from the original data, so ``make_tools()`` returns tools over a copy
of their own: the JSON is parsed once per process, kept pickled, and each call of the
factory unpickles a fresh copy (a deep copy, several times faster than
``copy.deepcopy``). Target: ``tests/corpus/tools/tau_airline.py:make_tools()``.

Results are what the benchmark's tools answer: JSON of the records (compared as JSON
values) or an ``Error: ...`` text, returned rather than raised, as the benchmark does.
"""

from __future__ import annotations

import ast
import copy
import json
import operator
import os
import pickle
from pathlib import Path
from typing import Any

from execution_log import counted_tool

CORPUS_ENV = "AGENTFORGE_CORPUS"
TABLES = ("flights", "reservations", "users")
REPOSITORY = Path(__file__).resolve().parents[3]
NEW_RESERVATION_IDS = ("HATHAT", "HATHAU", "HATHAV")
NEW_CERTIFICATE_IDS = (3221322, 3221323, 3221324)
BOOKING_TIME = "2024-05-15T15:00:00"
AIRPORTS = {
    "SFO": "San Francisco", "JFK": "New York", "LAX": "Los Angeles", "ORD": "Chicago",
    "DFW": "Dallas", "DEN": "Denver", "SEA": "Seattle", "ATL": "Atlanta", "MIA": "Miami",
    "BOS": "Boston", "PHX": "Phoenix", "IAH": "Houston", "LAS": "Las Vegas",
    "MCO": "Orlando", "EWR": "Newark", "CLT": "Charlotte", "MSP": "Minneapolis",
    "DTW": "Detroit", "PHL": "Philadelphia", "LGA": "LaGuardia",
}

_pickled: bytes | None = None


def data_folder() -> Path:
    corpus = os.environ.get(CORPUS_ENV)
    base = Path(corpus) if corpus else REPOSITORY.parent / "shared" / "corpus"
    return base / "tau-airline" / "data"


def fresh_database() -> dict[str, dict[str, Any]]:
    """A private copy of the original database (parsed on the first call only)."""
    global _pickled
    if _pickled is None:
        folder = data_folder()
        tables = {}
        for table in TABLES:
            with open(folder / f"{table}.json", encoding="utf-8") as source:
                tables[table] = json.load(source)
        _pickled = pickle.dumps(tables, protocol=pickle.HIGHEST_PROTOCOL)
    return pickle.loads(_pickled)


def make_tools() -> AirlineTools:
    """Airline tools over a fresh copy of the original data: one per conversation."""
    return AirlineTools(fresh_database())


class AirlineTools:
    """The airline agent's tools over one copy of the database."""

    def __init__(self, database: dict[str, dict[str, Any]] | None = None) -> None:
        data = database if database is not None else fresh_database()
        self.flights = data["flights"]
        self.reservations = data["reservations"]
        self.users = data["users"]

    # ------------------------------------------------------------ look-ups

    @counted_tool(name="get_user_details")
    def get_user_details(self, user_id: str) -> Any:
        """Get the details of a user."""
        return self.users.get(user_id, "Error: user not found")

    @counted_tool(name="get_reservation_details")
    def get_reservation_details(self, reservation_id: str) -> Any:
        """Get the details of a reservation."""
        return self.reservations.get(reservation_id, "Error: user not found")

    @counted_tool(name="list_all_airports")
    def list_all_airports(self) -> dict[str, str]:
        """List all airports and their cities."""
        return dict(AIRPORTS)

    @counted_tool(name="search_direct_flight")
    def search_direct_flight(self, origin: str, destination: str, date: str) -> list[Any]:
        """Search direct flights between two cities on a date."""
        return [self._on_date(flight, date) for flight in self.flights.values()
                if flight["origin"] == origin and flight["destination"] == destination
                and self._bookable(flight, date)]

    @counted_tool(name="search_onestop_flight")
    def search_onestop_flight(self, origin: str, destination: str, date: str) -> list[Any]:
        """Search one-stop flights between two cities on a date."""
        results = []
        for first in self.flights.values():
            if first["origin"] != origin:
                continue
            for second in self.flights.values():
                if second["destination"] != destination or first["destination"] != second["origin"]:
                    continue
                next_day = "+1" in first["scheduled_arrival_time_est"]
                second_date = f"2024-05-{int(date[-2:]) + 1}" if next_day else date
                if first["scheduled_arrival_time_est"] > second["scheduled_departure_time_est"]:
                    continue
                if self._bookable(first, date) and self._bookable(second, second_date):
                    leg_one = self._on_date(first, date) | {"date": date}
                    leg_two = self._on_date(second, date) | {"date": second_date}
                    results.append([leg_one, leg_two])
        return results

    # ------------------------------------------------------------ changes

    @counted_tool(name="book_reservation")
    def book_reservation(self, user_id: str, origin: str, destination: str,
                         flight_type: str, cabin: str, flights: list[dict[str, Any]],
                         passengers: list[dict[str, Any]],
                         payment_methods: list[dict[str, Any]], total_baggages: int,
                         nonfree_baggages: int, insurance: str) -> Any:
        """Book a reservation."""
        if user_id not in self.users:
            return "Error: user not found"
        user = self.users[user_id]
        reservation_id = next((new for new in NEW_RESERVATION_IDS
                               if new not in self.reservations), NEW_RESERVATION_IDS[-1])
        reservation = {
            "reservation_id": reservation_id, "user_id": user_id, "origin": origin,
            "destination": destination, "flight_type": flight_type, "cabin": cabin,
            "flights": copy.deepcopy(flights), "passengers": passengers,
            "payment_history": payment_methods, "created_at": BOOKING_TIME,
            "total_baggages": total_baggages, "nonfree_baggages": nonfree_baggages,
            "insurance": insurance,
        }
        total_price = 0
        for flight in reservation["flights"]:
            problem = self._price(flight, cabin, len(passengers))
            if problem:
                return problem
            total_price += flight["price"] * len(passengers)
        if insurance == "yes":
            total_price += 30 * len(passengers)
        total_price += 50 * nonfree_baggages
        for payment in payment_methods:
            payment_id = payment["payment_id"]
            method = user["payment_methods"].get(payment_id)
            if method is None:
                return f"Error: payment method {payment_id} not found"
            prepaid = method["source"] in ("gift_card", "certificate")
            if prepaid and method["amount"] < payment["amount"]:
                return f"Error: not enough balance in payment method {payment_id}"
        paid = sum(payment["amount"] for payment in payment_methods)
        if paid != total_price:
            return (f"Error: payment amount does not add up, total price is {total_price}, "
                    f"but paid {paid}")
        for payment in payment_methods:
            method = user["payment_methods"][payment["payment_id"]]
            if method["source"] == "gift_card":
                method["amount"] -= payment["amount"]
            elif method["source"] == "certificate":
                del user["payment_methods"][payment["payment_id"]]
        self.reservations[reservation_id] = reservation
        user["reservations"].append(reservation_id)
        return reservation

    @counted_tool(name="cancel_reservation")
    def cancel_reservation(self, reservation_id: str) -> Any:
        """Cancel a whole reservation; every payment is refunded."""
        reservation = self.reservations.get(reservation_id)
        if reservation is None:
            return "Error: reservation not found"
        refunds = [{"payment_id": payment["payment_id"], "amount": -payment["amount"]}
                   for payment in reservation["payment_history"]]
        reservation["payment_history"].extend(refunds)
        reservation["status"] = "cancelled"
        return reservation

    @counted_tool(name="update_reservation_baggages")
    def update_reservation_baggages(self, reservation_id: str, total_baggages: int,
                                    nonfree_baggages: int, payment_id: str) -> Any:
        """Change the number of checked bags of a reservation."""
        reservation = self.reservations.get(reservation_id)
        if reservation is None:
            return "Error: reservation not found"
        total_price = 50 * max(0, nonfree_baggages - reservation["nonfree_baggages"])
        method, problem = self._update_payment(reservation, payment_id, total_price)
        if problem:
            return problem
        reservation["total_baggages"] = total_baggages
        reservation["nonfree_baggages"] = nonfree_baggages
        self._charge(reservation, method, payment_id, total_price)
        return reservation

    @counted_tool(name="update_reservation_flights")
    def update_reservation_flights(self, reservation_id: str, cabin: str,
                                   flights: list[dict[str, Any]], payment_id: str) -> Any:
        """Change the flights (or the cabin) of a reservation."""
        reservation = self.reservations.get(reservation_id)
        if reservation is None:
            return "Error: reservation not found"
        travellers = len(reservation["passengers"])
        flights = copy.deepcopy(flights)
        total_price = 0
        for flight in flights:
            kept = [old for old in reservation["flights"]
                    if old["flight_number"] == flight["flight_number"]
                    and old["date"] == flight["date"] and cabin == reservation["cabin"]]
            if kept:
                flight.update(price=kept[0]["price"], origin=kept[0]["origin"],
                              destination=kept[0]["destination"])
            else:
                problem = self._price(flight, cabin, travellers)
                if problem:
                    return problem
            total_price += flight["price"] * travellers
        total_price -= sum(old["price"] for old in reservation["flights"]) * travellers
        method, problem = self._update_payment(reservation, payment_id, total_price)
        if problem:
            return problem
        reservation["flights"] = flights
        self._charge(reservation, method, payment_id, total_price)
        return reservation

    @counted_tool(name="update_reservation_passengers")
    def update_reservation_passengers(self, reservation_id: str,
                                      passengers: list[dict[str, Any]]) -> Any:
        """Replace the passengers of a reservation (their number stays)."""
        reservation = self.reservations.get(reservation_id)
        if reservation is None:
            return "Error: reservation not found"
        if len(passengers) != len(reservation["passengers"]):
            return "Error: number of passengers does not match"
        reservation["passengers"] = passengers
        return reservation

    @counted_tool(name="send_certificate")
    def send_certificate(self, user_id: str, amount: int | float) -> str:
        """Send a certificate of an amount to a user."""
        user = self.users.get(user_id)
        if user is None:
            return "Error: user not found"
        for number in NEW_CERTIFICATE_IDS:
            payment_id = f"certificate_{number}"
            if payment_id not in user["payment_methods"]:
                user["payment_methods"][payment_id] = {
                    "source": "certificate", "amount": amount, "id": payment_id}
                return f"Certificate {payment_id} added to user {user_id} with amount {amount}."
        return "Error: too many certificates"

    # ------------------------------------------------------------ no data

    @counted_tool(name="calculate")
    def calculate(self, expression: str) -> str:
        """Calculate an arithmetic expression (numbers, + - * /, parentheses)."""
        if not all(char in "0123456789+-*/(). " for char in expression):
            return "Error: invalid characters in expression"
        try:
            return str(round(float(arithmetic(expression)), 2))
        except (ArithmeticError, SyntaxError, ValueError) as exc:
            return f"Error: {exc}"

    @counted_tool(name="think")
    def think(self, thought: str) -> str:
        """Think about something; nothing changes."""
        return ""

    @counted_tool(name="transfer_to_human_agents")
    def transfer_to_human_agents(self, summary: str) -> str:
        """Transfer the user to a human agent, with a summary of the issue."""
        return "Transfer successful"

    # ------------------------------------------------------------ helpers

    def _bookable(self, flight: dict[str, Any], date: str) -> bool:
        return flight["dates"].get(date, {}).get("status") == "available"

    def _on_date(self, flight: dict[str, Any], date: str) -> dict[str, Any]:
        found = {key: value for key, value in flight.items() if key != "dates"}
        return found | flight["dates"][date]

    def _price(self, flight: dict[str, Any], cabin: str, travellers: int) -> str | None:
        """Set a booked flight's price, origin and destination; or say why it cannot be."""
        number, date = flight["flight_number"], flight["date"]
        known = self.flights.get(number)
        if known is None:
            return f"Error: flight {number} not found"
        if date not in known["dates"]:
            return f"Error: flight {number} not found on date {date}"
        on_date = known["dates"][date]
        if on_date["status"] != "available":
            return f"Error: flight {number} not available on date {date}"
        if on_date["available_seats"][cabin] < travellers:
            return f"Error: not enough seats on flight {number}"
        flight.update(price=on_date["prices"][cabin], origin=known["origin"],
                      destination=known["destination"])
        return None

    def _update_payment(self, reservation: dict[str, Any], payment_id: str,
                        total_price: int) -> tuple[dict[str, Any] | None, str | None]:
        method = self.users[reservation["user_id"]]["payment_methods"].get(payment_id)
        if method is None:
            return None, "Error: payment method not found"
        if method["source"] == "certificate":
            return None, "Error: certificate cannot be used to update reservation"
        if method["source"] == "gift_card" and method["amount"] < total_price:
            return None, "Error: gift card balance is not enough"
        return method, None

    def _charge(self, reservation: dict[str, Any], method: dict[str, Any] | None,
                payment_id: str, total_price: int) -> None:
        if method is not None and method["source"] == "gift_card":
            method["amount"] -= total_price
        if total_price != 0:
            reservation["payment_history"].append({"payment_id": payment_id,
                                                   "amount": total_price})


_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
              ast.Div: operator.truediv, ast.UAdd: operator.pos, ast.USub: operator.neg}


def arithmetic(expression: str) -> float:
    """The value of an expression of numbers, ``+ - * /`` and parentheses; never ``eval``."""

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.operand))
        raise ValueError("not an arithmetic expression")

    return value(ast.parse(expression.strip(), mode="eval").body)
