"""tau2-bench's telecom domain, written again, for the ``tau2-telecom`` results file.

Two sides share one world, as in the benchmark: the agent's tools work on the carrier's
database (customers, lines, plans, devices, bills) and the user simulator's tools on a
simulated phone (SIM, radios, APN, VPN, apps) in its surroundings (abroad or not, the
signal of each network technology, whether the line works; its Wi-Fi stays off, as no
scenario here turns it on). After every call the two are synchronised as the benchmark's
environment does: the line's status, roaming and data allowance reach the phone's
surroundings, a bill awaiting payment becomes the user's payment request, and a paid
request marks the bill paid.

The database is that of the one customer the scenarios are about (John Smith, C1001, and
his lines, plans, devices and bills as the benchmark's ``db.toml`` holds them at the
recording's commit 40f46d35); today is the benchmark's fixed 2025-02-25. Each simulation
starts from its task's initial state: the initialisation actions of the task are read at
run time from the results file's ``tasks`` (``$AGENTFORGE_CORPUS/tau2-telecom/``, default
``../shared/corpus``), never copied here. Replay makes the tools afresh for each
conversation (``make_tools()``) and replays a file's conversations in order, so a tool set
takes the next simulation's task at its first call. Target:
``tests/corpus/tools/ol_tau2_telecom.py:make_tools()``.

Results are what the benchmark's environment answers: text, or JSON made as it makes it
(a record as its fields; in a mapping, numbers as strings; dates with ``str()``). A
refusal is raised, and recorded as ``Error: ...`` with ``"error": true``.
"""

from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from execution_log import counted_tool

CORPUS_ENV = "AGENTFORGE_CORPUS"
RESULTS_FILE = Path("tau2-telecom") / "2025-08-10T02-44-06_telecom_gpt-4o.json"
REPOSITORY = Path(__file__).resolve().parents[3]
TODAY = "2025-02-25"
CYCLE_END = "2025-02-28"
LAST_MONTH = ("2025-01-01", "2025-01-31", "2025-01-15")
"""The first and last day of the month before today, and 14 days after its start."""

# ---------------------------------------------------------------- the carrier's data


def _line(line_id: str, number: str, status: str, plan: str, device: str, used: float,
          roaming: bool, contract_end: str, plan_change: str, sim: str | None = None,
          suspended: str | None = None) -> dict[str, Any]:
    return {"line_id": line_id, "phone_number": number, "status": status, "plan_id": plan,
            "device_id": device, "data_used_gb": used, "data_refueling_gb": 0.0,
            "roaming_enabled": roaming, "contract_end_date": contract_end,
            "last_plan_change_date": plan_change, "last_sim_replacement_date": sim,
            "suspension_start_date": suspended}


def _bill(bill_id: str, start: str, end: str, issued: str, total: float, due: str,
          status: str, items: list[tuple[str, float, str]]) -> dict[str, Any]:
    return {"bill_id": bill_id, "customer_id": "C1001", "period_start": start,
            "period_end": end, "issue_date": issued, "total_due": total, "due_date": due,
            "line_items": [{"description": text, "amount": amount, "date": issued,
                            "item_type": kind} for text, amount, kind in items],
            "status": status}


def _plan_charges() -> list[tuple[str, float, str]]:
    """The monthly plan charges of the customer's three lines."""
    return [("Basic Plan - Line 555-123-2001", 40.0, "Plan Charge"),
            ("Premium Plan - Line 555-123-2002", 65.0, "Plan Charge"),
            ("Basic Plan - Line 555-123-2003", 40.0, "Plan Charge")]


ACCOUNT: dict[str, list[dict[str, Any]]] = {
    "plans": [
        {"plan_id": "P1001", "name": "Basic Plan", "data_limit_gb": 5.0,
         "price_per_month": 40.0, "data_refueling_price_per_gb": 5.0},
        {"plan_id": "P1002", "name": "Premium Plan", "data_limit_gb": 15.0,
         "price_per_month": 65.0, "data_refueling_price_per_gb": 2.0},
    ],
    "devices": [
        {"device_id": device_id, "device_type": kind, "model": model, "imei": imei,
         "is_esim_capable": esim, "activated": True, "activation_date": activated,
         "last_esim_transfer_date": transferred}
        for device_id, kind, model, imei, esim, activated, transferred in (
            ("D1001", "phone", "Smartphone X", "123456789012345", True,
             "2025-01-20 14:30:00", None),
            ("D1002", "phone", "Smartphone Pro Max", "234567890123456", True,
             "2025-02-15 11:45:00", "2025-01-20 09:30:00"),
            ("D1003", "tablet", "Tablet Ultra", "345678901234567", False,
             "2025-01-25 16:20:00", None))
    ],
    "lines": [
        _line("L1001", "555-123-2001", "Active", "P1001", "D1001", 3.2, False,
              "2026-12-31", "2025-01-10"),
        _line("L1002", "555-123-2002", "Active", "P1002", "D1002", 8.7, True,
              "2026-12-31", "2024-12-15", sim="2025-01-20"),
        _line("L1003", "555-123-2003", "Suspended", "P1001", "D1003", 0.0, False,
              "2026-06-30", "2024-10-05", suspended="2025-02-01"),
    ],
    "customers": [{
        "customer_id": "C1001", "full_name": "John Smith", "date_of_birth": "1985-06-15",
        "email": "john.smith@example.com", "phone_number": "555-123-2002",
        "address": {"street": "123 Main St", "city": "Anytown", "state": "CA",
                    "zip_code": "90210"},
        "account_status": "Active",
        "payment_methods": [{"method_type": "Credit Card", "account_number_last_4": "1235",
                             "expiration_date": "12/2026"}],
        "line_ids": ["L1001", "L1002", "L1003"], "bill_ids": ["B1001", "B1002", "B1003"],
        "created_at": "2025-01-15 10:30:00", "last_extension_date": None,
        "goodwill_credit_used_this_year": 25.0,
    }],
    "bills": [
        _bill("B1001", "2025-01-01", "2025-01-31", "2025-01-05", 160.5, "2025-01-19",
              "Paid", [*_plan_charges(),
                       ("Data Overage - Line 555-123-2002", 15.5, "Overage")]),
        _bill("B1002", "2025-02-01", "2025-02-28", "2025-02-05", 150.0, "2025-02-19",
              "Issued", [*_plan_charges(),
                         ("Suspension Fee - Line 555-123-2003", 5.0, "Fee")]),
        _bill("B1003", "2025-03-01", "2025-03-31", "2025-03-01", 0.0, "2025-03-15",
              "Draft", []),
    ],
}


ID_TABLES = {"L": ("lines", "line_id", "Line"), "D": ("devices", "device_id", "Device"),
             "B": ("bills", "bill_id", "Bill"), "C": ("customers", "customer_id", "Customer"),
             "P": ("plans", "plan_id", "Plan")}
"""What an ID's first letter names: its table, key field and kind."""


def _mapping_json(result: dict[str, Any]) -> str:
    """A mapping as the benchmark writes it: its numbers (and booleans) become strings."""
    return json.dumps({key: str(value) if isinstance(value, (int, float)) else value
                       for key, value in result.items()})


# ---------------------------------------------------------------- the phone


class PerformanceLevel(StrEnum):
    """A VPN server's performance (its repr shows in ``check_vpn_status``)."""

    EXCELLENT = "excellent"
    POOR = "poor"


SIGNAL_ICONS = {"none": "📵 No Signal", "poor": "📶¹ Poor", "fair": "📶² Fair",
                "good": "📶³ Good", "excellent": "📶⁴ Excellent"}
TECHNOLOGY_SPEEDS = {"2G": (0.1, 0.4), "3G": (1.0, 5.0), "4G": (10.0, 100.0),
                     "5G": (50.0, 500.0), "none": (0.0, 0.0)}
SIGNAL_FACTORS = {"poor": 0.2, "fair": 0.5, "good": 0.8, "excellent": 1.0, "none": 0.0}
MODE_TECHNOLOGY = {"4g_only": "4G", "3g_only": "3G", "2g_only": "2G"}
SPEED_ADVICE = (
    (1, "Very Poor", "Connection is very slow. Basic web browsing might be difficult."),
    (5, "Poor", "Connection is slow. Web browsing may be sluggish, streaming difficult."),
    (25, "Fair", "Connection is okay for web browsing and some standard definition "
                 "streaming."),
    (100, "Good", "Connection is good for most activities, including HD streaming."),
    (float("inf"), "Excellent", "Connection is very fast."),
)


@dataclass
class Apn:
    apn_name: str = "internet"
    reset_at_reboot: bool = False
    mmsc_url: str | None = "http://mms.carrier.com/mms/wapenc"


@dataclass
class Phone:
    """The simulated phone, as the benchmark's ``user_db.toml`` starts it."""

    sim_card_status: str = "active"
    sim_card_missing: bool = False
    airplane_mode: bool = False
    signal: str = "good"
    technology: str = "5G"
    connection: str = "connected"
    battery_level: int = 80
    data_enabled: bool = True
    roaming_enabled: bool = False
    network_mode: str = "4g_5g_preferred"
    apn: Apn = field(default_factory=Apn)
    wifi_calling_enabled: bool = False
    wifi_calling_mms_over_wifi: bool = False
    data_saver_mode: bool = False
    vpn_enabled_setting: bool = False
    vpn_connected: bool = False
    vpn_details: dict[str, Any] | None = None
    apps: dict[str, dict[str, bool]] = field(default_factory=lambda: {
        "messaging": {"sms": True, "storage": True, "phone": True, "network": False},
        "browser": {"sms": False, "storage": True, "phone": False, "network": True},
    })


@dataclass
class Surroundings:
    phone_number: str | None = None
    is_abroad: bool = False
    roaming_allowed: bool = False
    signal: dict[str, str] = field(default_factory=lambda: {
        "2G": "poor", "3G": "fair", "4G": "good", "5G": "excellent"})
    mobile_data_usage_exceeded: bool = False
    line_active: bool = True
    payment_request: dict[str, Any] | None = None


# ---------------------------------------------------------------- the tasks

_tasks: list[dict[str, Any]] | None = None


def results_path() -> Path:
    corpus = os.environ.get(CORPUS_ENV)
    base = Path(corpus) if corpus else REPOSITORY.parent / "shared" / "corpus"
    return base / RESULTS_FILE


def simulation_tasks() -> list[dict[str, Any]]:
    """The task of each simulation that makes calls, in the file's order (read once)."""
    global _tasks
    if _tasks is None:
        with open(results_path(), encoding="utf-8") as source:
            results = json.load(source)
        tasks = {task["id"]: task for task in results["tasks"]}
        _tasks = [tasks[simulation["task_id"]] for simulation in results["simulations"]
                  if any(message.get("tool_calls") for message in simulation["messages"])]
    return _tasks


_started = 0
"""How many tool sets have taken a simulation's task (a second replay of the file in one
process starts again at the first)."""


def make_tools() -> TelecomTools:
    """Tools over a fresh world: one per conversation."""
    return TelecomTools()


# ---------------------------------------------------------------- the tools


class TelecomTools:
    """The agent's and the user simulator's telecom tools over one world."""

    def __init__(self) -> None:
        self.data = copy.deepcopy(ACCOUNT)
        self.phone = Phone()
        self.around = Surroundings()
        self.task: dict[str, Any] | None = None

    # ------------------------------------------------------------ the world

    def _begin(self) -> None:
        """At the first call: take the next simulation's task and set its initial state."""
        global _started
        if self.task is not None:
            return
        tasks = simulation_tasks()
        self.task = tasks[_started % len(tasks)]
        _started += 1
        for action in self.task["initial_state"]["initialization_actions"]:
            getattr(self, "_init_" + action["func_name"])(**action["arguments"])
            self._sync()

    def _run(self, work: Any) -> Any:
        """One call, as the benchmark's environment makes it: a refusal is worded
        ``Error: ...``, and the two sides are synchronised afterwards."""
        self._begin()
        try:
            return work()
        except Exception as exc:
            raise ValueError(f"Error: {exc}") from exc
        finally:
            self._sync()

    def _sync(self) -> None:
        """The benchmark's ``sync_tools``: the carrier's side reaches the phone's."""
        number = self.around.phone_number
        if number is None:
            return
        line = next(line for line in self.data["lines"] if line["phone_number"] == number)
        self.around.line_active = line["status"] == "Active"
        self.around.roaming_allowed = line["roaming_enabled"]
        plan = self._record("plans", "plan_id", line["plan_id"], "Plan")
        self.around.mobile_data_usage_exceeded = (
            line["data_used_gb"] >= plan["data_limit_gb"] + line["data_refueling_gb"])
        request = self.around.payment_request
        if request is not None and request["paid"]:
            self._record("bills", "bill_id", request["bill_id"], "Bill")["status"] = "Paid"
            self.around.payment_request = None
        if self.around.payment_request is None:
            customer = self._customer_by_phone(number)
            waiting = self._awaiting_payment(customer)
            if waiting:
                self.around.payment_request = {"bill_id": waiting[0]["bill_id"],
                                               "amount_due": waiting[0]["total_due"],
                                               "paid": False}

    def _record(self, table: str, key: str, value: str, kind: str) -> dict[str, Any]:
        for record in self.data[table]:
            if record[key] == value:
                return record
        raise ValueError(f"{kind} with ID {value} not found")

    def _customer(self, customer_id: str) -> dict[str, Any]:
        return self._record("customers", "customer_id", customer_id, "Customer")

    def _customer_by_phone(self, number: str) -> dict[str, Any]:
        for customer in self.data["customers"]:
            if customer["phone_number"] == number:
                return customer
            for line_id in customer["line_ids"]:
                if self._record("lines", "line_id", line_id, "Line")["phone_number"] == number:
                    return customer
        raise ValueError(f"Customer with phone number {number} not found")

    def _target_line(self, customer_id: str, line_id: str) -> dict[str, Any]:
        if line_id not in self._customer(customer_id)["line_ids"]:
            raise ValueError(f"Line {line_id} not found for customer {customer_id}")
        return self._record("lines", "line_id", line_id, "Line")

    def _awaiting_payment(self, customer: dict[str, Any]) -> list[dict[str, Any]]:
        bills = [self._record("bills", "bill_id", bill_id, "Bill")
                 for bill_id in customer["bill_ids"]]
        return [bill for bill in bills if bill["status"] == "Awaiting Payment"]

    # ------------------------------------------------------------ initial states

    def _init_set_user_info(self, name: str, phone_number: str) -> None:
        self.around.phone_number = phone_number

    def _init_set_user_location(self, abroad: bool) -> None:
        self.around.is_abroad = abroad

    def _init_turn_roaming_off(self) -> None:
        self.phone.roaming_enabled = False
        self._search()

    def _init_turn_roaming_on(self) -> None:
        self.phone.roaming_enabled = True
        self._search()

    def _init_enable_roaming(self, customer_id: str, line_id: str) -> None:
        self._target_line(customer_id, line_id)["roaming_enabled"] = True

    def _init_disable_roaming(self, customer_id: str, line_id: str) -> None:
        self._target_line(customer_id, line_id)["roaming_enabled"] = False

    def _init_simulate_network_search(self) -> None:
        self._search()

    def _init_turn_data_off(self) -> None:
        self.phone.data_enabled = False
        self._search()

    def _init_turn_data_saver_mode_on(self) -> None:
        self.phone.data_saver_mode = True

    def _init_set_network_mode_preference(self, mode: str) -> None:
        self.phone.network_mode = mode
        self._search()

    def _init_break_vpn(self) -> None:
        self.phone.vpn_connected = True
        self.phone.vpn_details = {"server_address": "192.168.1.1", "protocol": "OpenVPN",
                                  "server_performance": PerformanceLevel.POOR}

    def _init_set_data_usage(self, customer_id: str, line_id: str,
                             data_used_gb: float) -> None:
        self._target_line(customer_id, line_id)["data_used_gb"] = data_used_gb

    def _init_turn_airplane_mode_on(self) -> None:
        self._toggle_airplane_mode()

    def _init_unseat_sim_card(self) -> None:
        self.phone.sim_card_missing = True
        self._search()

    def _init_lock_sim_card(self, mode: str) -> None:
        self.phone.sim_card_status = f"locked_{mode}"
        self._search()

    def _init_break_apn_settings(self) -> None:
        self.phone.apn.apn_name = "broken"
        self._search()

    def _init_break_apn_mms_setting(self) -> None:
        self.phone.apn.mmsc_url = None

    def _init_set_wifi_calling(self, enabled: bool, mms_over_wifi: bool | None = None
                               ) -> None:
        self.phone.wifi_calling_enabled = enabled
        if mms_over_wifi is not None:
            self.phone.wifi_calling_mms_over_wifi = mms_over_wifi

    def _init_remove_app_permission(self, app_name: str, permission: str) -> None:
        self.phone.apps[app_name][permission] = False

    def _init_suspend_line_for_overdue_bill(self, customer_id: str, line_id: str,
                                            new_bill_id: str, contract_ended: bool) -> None:
        line = self._record("lines", "line_id", line_id, "Line")
        amount = self._record("plans", "plan_id", line["plan_id"], "Plan")["price_per_month"]
        start, end, due = LAST_MONTH
        self.data["bills"].append({
            "bill_id": new_bill_id, "customer_id": customer_id, "period_start": start,
            "period_end": end, "issue_date": start, "total_due": 0.0 + amount,
            "due_date": due,
            "line_items": [{"description": f"Charge for line {line_id}", "amount": amount,
                            "date": TODAY, "item_type": "Charge"}],
            "status": "Overdue"})
        self._customer(customer_id)["bill_ids"].append(new_bill_id)
        line["status"] = "Suspended"
        line["suspension_start_date"] = TODAY
        if contract_ended:
            line["contract_end_date"] = end

    # ------------------------------------------------------------ the phone's workings

    def _sim_status(self) -> str:
        return "missing" if self.phone.sim_card_missing else self.phone.sim_card_status

    def _no_service(self) -> None:
        self.phone.connection, self.phone.technology, self.phone.signal = (
            "no_service", "none", "none")

    def _search(self) -> None:
        """The benchmark's network search: what the phone connects to, and how well."""
        phone = self.phone
        if self._sim_status() == "active":
            phone.connection = "connected"
            technology = MODE_TECHNOLOGY.get(phone.network_mode, "4G")
            if phone.network_mode == "4g_5g_preferred" and self.around.signal["5G"] != "none":
                technology = "5G"
            phone.technology, phone.signal = technology, self.around.signal[technology]
        else:
            self._no_service()
        if phone.airplane_mode or phone.apn.apn_name == "broken" or not self.around.line_active:
            self._no_service()

    def _status_bar(self) -> str:
        phone, shown = self.phone, []
        if phone.airplane_mode:
            shown.append("✈️ Airplane Mode")
        else:
            shown.append(SIGNAL_ICONS[phone.signal])
            if phone.technology != "none":
                shown.append(phone.technology)
            if phone.data_enabled and phone.technology != "none":
                shown.append("📱 Data Enabled")
                if phone.data_saver_mode:
                    shown.append("🔽 Data Saver")
            else:
                shown.append("📵 Data Disabled")
        if phone.vpn_connected:
            shown.append("🔒 VPN Connected")
        shown.append(f"🔋 {phone.battery_level}%")
        return " | ".join(shown)

    def _with_bar(self, text: str) -> str:
        return f"{text}\nStatus Bar: {self._status_bar()}"

    def _data_works(self) -> bool:
        phone, around = self.phone, self.around
        if phone.airplane_mode or phone.signal == "none" or phone.connection == "no_service":
            return False
        if around.is_abroad and not (phone.roaming_enabled and around.roaming_allowed):
            return False
        return phone.data_enabled and not around.mobile_data_usage_exceeded

    def _toggle_airplane_mode(self) -> bool:
        phone = self.phone
        phone.airplane_mode = not phone.airplane_mode
        if phone.airplane_mode and phone.vpn_connected:
            phone.vpn_connected, phone.vpn_details = False, None
        if not phone.airplane_mode:
            phone.connection = "searching"
        self._search()
        return phone.airplane_mode

    # ------------------------------------------------------------ the agent's tools

    @counted_tool(name="get_customer_by_phone")
    def get_customer_by_phone(self, phone_number: str) -> str:
        """Finds a customer by their primary contact or line phone number."""
        return self._run(lambda: json.dumps(self._customer_by_phone(phone_number)))

    @counted_tool(name="get_details_by_id")
    def get_details_by_id(self, id: str) -> str:
        """Retrieves the details for a given ID (customer, line, device, bill or plan)."""
        def details() -> str:
            if id[:1] not in ID_TABLES:
                raise ValueError(f"Unknown ID format or type: {id}")
            table, key, kind = ID_TABLES[id[:1]]
            return json.dumps(self._record(table, key, id, kind))
        return self._run(details)

    @counted_tool(name="get_bills_for_customer")
    def get_bills_for_customer(self, customer_id: str, limit: int = 12) -> str:
        """Retrieves a list of the customer's bills, most recent first."""
        def bills() -> str:
            found = [self._record("bills", "bill_id", bill_id, "Bill")
                     for bill_id in self._customer(customer_id)["bill_ids"]]
            return json.dumps(sorted(found, key=lambda bill: bill["issue_date"],
                                     reverse=True)[:limit])
        return self._run(bills)

    @counted_tool(name="get_data_usage")
    def get_data_usage(self, customer_id: str, line_id: str) -> str:
        """Retrieves the current billing cycle's data usage of a line."""
        def usage() -> str:
            line = self._target_line(customer_id, line_id)
            plan = self._record("plans", "plan_id", line["plan_id"], "Plan")
            return _mapping_json({"line_id": line_id, "data_used_gb": line["data_used_gb"],
                                  "data_limit_gb": plan["data_limit_gb"],
                                  "data_refueling_gb": line["data_refueling_gb"],
                                  "cycle_end_date": CYCLE_END})
        return self._run(usage)

    @counted_tool(name="enable_roaming")
    def enable_roaming(self, customer_id: str, line_id: str) -> str:
        """Enables international roaming on a line."""
        def enable() -> str:
            line = self._target_line(customer_id, line_id)
            if line["roaming_enabled"]:
                return "Roaming was already enabled"
            line["roaming_enabled"] = True
            return "Roaming enabled successfully"
        return self._run(enable)

    @counted_tool(name="refuel_data")
    def refuel_data(self, customer_id: str, line_id: str, gb_amount: float) -> str:
        """Refuels data for a line, charging it to the customer's next bill."""
        def refuel() -> str:
            line = self._target_line(customer_id, line_id)
            if gb_amount <= 0:
                raise ValueError("Refuel amount must be positive")
            plan = self._record("plans", "plan_id", line["plan_id"], "Plan")
            price = plan["data_refueling_price_per_gb"]
            charge = gb_amount * price
            line["data_refueling_gb"] += gb_amount
            self._charge(customer_id, charge, f"Data refueling: {gb_amount} GB at ${price}/GB")
            return _mapping_json({
                "message": f"Successfully added {gb_amount} GB of data for line {line_id} "
                           f"for ${charge:.2f}",
                "new_data_refueling_gb": line["data_refueling_gb"], "charge": charge})
        return self._run(refuel)

    def _charge(self, customer_id: str, amount: float, description: str) -> None:
        """A one-time charge on the customer's draft bill (the account has one)."""
        customer = self._customer(customer_id)
        draft = next(bill for bill in self.data["bills"]
                     if bill["bill_id"] in customer["bill_ids"] and bill["status"] == "Draft")
        draft["line_items"].append({"description": description, "amount": amount,
                                    "date": TODAY,
                                    "item_type": "Credit" if amount < 0 else "Charge"})
        draft["total_due"] += amount

    @counted_tool(name="resume_line")
    def resume_line(self, customer_id: str, line_id: str) -> str:
        """Resumes a suspended line."""
        def resume() -> str:
            line = self._target_line(customer_id, line_id)
            if line["status"] not in ("Suspended", "Pending Activation"):
                raise ValueError("Line must be suspended to resume")
            line["status"], line["suspension_start_date"] = "Active", None
            return json.dumps({"message": "Line resumed successfully", "line": line})
        return self._run(resume)

    @counted_tool(name="send_payment_request")
    def send_payment_request(self, customer_id: str, bill_id: str) -> str:
        """Sends a payment request to the customer for a specific bill."""
        def send() -> str:
            customer = self._customer(customer_id)
            if self._awaiting_payment(customer):
                raise ValueError("A bill is already awaiting payment for this customer")
            if bill_id not in customer["bill_ids"]:
                raise ValueError(f"Bill {bill_id} not found for customer {customer_id}")
            bill = self._record("bills", "bill_id", bill_id, "Bill")
            bill["status"] = "Awaiting Payment"
            return f"Payment request sent to the customer for bill {bill_id}"
        return self._run(send)

    @counted_tool(name="transfer_to_human_agents")
    def transfer_to_human_agents(self, summary: str) -> str:
        """Transfer the user to a human agent, with a summary of the user's issue."""
        return self._run(lambda: "Transfer successful")

    # ------------------------------------------------------------ the user's tools

    @counted_tool(name="check_status_bar")
    def check_status_bar(self) -> str:
        """Shows what icons are currently visible in the phone's status bar."""
        return self._run(lambda: f"Status Bar: {self._status_bar()}")

    @counted_tool(name="check_network_status")
    def check_network_status(self) -> str:
        """Checks the phone's connection status to cellular networks and Wi-Fi."""
        def status() -> str:
            phone = self.phone
            return "\n".join([
                f"Airplane Mode: {'ON' if phone.airplane_mode else 'OFF'}",
                f"SIM Card Status: {self._sim_status()}",
                f"Cellular Connection: {phone.connection}",
                f"Cellular Signal: {phone.signal}",
                f"Cellular Network Type: {phone.technology}",
                f"Mobile Data Enabled: {'Yes' if phone.data_enabled else 'No'}",
                f"Data Roaming Enabled: {'Yes' if phone.roaming_enabled else 'No'}",
                "Wi-Fi Radio: OFF", "Wi-Fi Connected: No"])
        return self._run(status)

    @counted_tool(name="check_network_mode_preference")
    def check_network_mode_preference(self) -> str:
        """Shows the current network mode preference."""
        return self._run(lambda: f"Network Mode Preference: {self.phone.network_mode}")

    @counted_tool(name="set_network_mode_preference")
    def set_network_mode_preference(self, mode: str) -> str:
        """Changes the type of cellular network the phone prefers to connect to."""
        def set_mode() -> str:
            modes = ("4g_5g_preferred", *MODE_TECHNOLOGY)
            if mode not in modes:
                return self._with_bar(f"Failed to set network mode: '{mode}' is not a valid "
                                      f"option. Please use one of: {', '.join(modes)}")
            self.phone.network_mode = mode
            self._search()
            return self._with_bar(f"Preferred Network Mode set to: {mode}")
        return self._run(set_mode)

    @counted_tool(name="run_speed_test")
    def run_speed_test(self) -> str:
        """Measures the current internet connection speed (download speed)."""
        def speed_test() -> str:
            phone = self.phone
            if not self._data_works():
                return "Speed test failed: No Connection."
            factor = 1.0
            if phone.vpn_connected and phone.vpn_details and (
                    phone.vpn_details["server_performance"] == PerformanceLevel.POOR):
                factor = 0.1
            if phone.data_saver_mode:
                factor *= 0.2
            low, high = TECHNOLOGY_SPEEDS[phone.technology]
            speed = round((low + high) / 2.0 * SIGNAL_FACTORS[phone.signal] * factor, 2)
            _, description, advice = next(band for band in SPEED_ADVICE if speed < band[0])
            return f"Speed Test Result: {speed:.2f} Mbps ({description}). {advice}"
        return self._run(speed_test)

    @counted_tool(name="toggle_airplane_mode")
    def toggle_airplane_mode(self) -> str:
        """Toggles Airplane Mode ON or OFF."""
        def toggle() -> str:
            on = self._toggle_airplane_mode()
            return self._with_bar(f"Airplane Mode is now {'ON' if on else 'OFF'}.")
        return self._run(toggle)

    @counted_tool(name="check_sim_status")
    def check_sim_status(self) -> str:
        """Checks if the SIM card is working correctly and shows its status."""
        texts = {"active": "Your SIM card is active and working.",
                 "missing": "No SIM card detected in the phone.",
                 "locked_pin": "The SIM card is locked with a PIN code.",
                 "locked_puk": "The SIM card is locked with a PUK code."}
        return self._run(lambda: texts[self._sim_status()])

    @counted_tool(name="reseat_sim_card")
    def reseat_sim_card(self) -> str:
        """Removes and reinserts the SIM card."""
        def reseat() -> str:
            self.phone.sim_card_missing = False
            self._search()
            return self._with_bar("SIM card re-seated successfully.")
        return self._run(reseat)

    @counted_tool(name="toggle_data")
    def toggle_data(self) -> str:
        """Toggles the phone's mobile data connection ON or OFF."""
        def toggle() -> str:
            self.phone.data_enabled = not self.phone.data_enabled
            self._search()
            return self._with_bar(
                f"Mobile Data is now {'ON' if self.phone.data_enabled else 'OFF'}.")
        return self._run(toggle)

    @counted_tool(name="check_data_restriction_status")
    def check_data_restriction_status(self) -> str:
        """Checks if the phone has data-limiting features active (Data Saver)."""
        return self._run(lambda: "Data Saver mode is ON (limits data usage)."
                         if self.phone.data_saver_mode else "Data Saver mode is OFF.")

    @counted_tool(name="toggle_data_saver_mode")
    def toggle_data_saver_mode(self) -> str:
        """Toggles Data Saver mode ON or OFF."""
        def toggle() -> str:
            self.phone.data_saver_mode = not self.phone.data_saver_mode
            return self._with_bar(
                f"Data Saver Mode is now {'ON' if self.phone.data_saver_mode else 'OFF'}.")
        return self._run(toggle)

    @counted_tool(name="check_apn_settings")
    def check_apn_settings(self) -> str:
        """Checks the APN settings the phone uses for mobile data."""
        return self._run(lambda: (
            f"Current APN Name: {self.phone.apn.apn_name}\n"
            f"MMSC URL (for picture messages): {self.phone.apn.mmsc_url or 'Not Set'}\n"
            "(These are technical settings, usually best left unchanged.)"))

    @counted_tool(name="reset_apn_settings")
    def reset_apn_settings(self) -> str:
        """Resets the APN settings to the defaults (applied at the next reboot)."""
        def reset() -> str:
            self.phone.apn.reset_at_reboot = True
            self._search()
            return self._with_bar("APN settings will reset at reboot.")
        return self._run(reset)

    @counted_tool(name="reboot_device")
    def reboot_device(self) -> str:
        """Restarts the phone."""
        def reboot() -> str:
            said = []
            if self.phone.apn.reset_at_reboot:
                said.append("Resetting APN settings...")
                self.phone.apn = Apn()
            said.append("Restarting network services...")
            self.phone.connection = "searching"
            self._search()
            return self._with_bar("\n".join(said))
        return self._run(reboot)

    @counted_tool(name="check_wifi_calling_status")
    def check_wifi_calling_status(self) -> str:
        """Checks if Wi-Fi Calling is enabled."""
        return self._run(lambda: "Wi-Fi Calling is currently turned "
                         f"{'ON' if self.phone.wifi_calling_enabled else 'OFF'}.")

    @counted_tool(name="toggle_wifi_calling")
    def toggle_wifi_calling(self) -> str:
        """Toggles Wi-Fi Calling ON or OFF."""
        def toggle() -> str:
            self.phone.wifi_calling_enabled = not self.phone.wifi_calling_enabled
            on = "ON" if self.phone.wifi_calling_enabled else "OFF"
            return self._with_bar(f"Wi-Fi Calling is now {on}.")
        return self._run(toggle)

    @counted_tool(name="check_vpn_status")
    def check_vpn_status(self) -> str:
        """Checks if a VPN connection is in use."""
        def status() -> str:
            phone = self.phone
            if phone.vpn_connected:
                if phone.vpn_details:
                    return f"VPN is ON and connected. Details: {phone.vpn_details}"
                return "VPN is ON and connected (no specific details available)."
            if phone.vpn_enabled_setting:
                return "VPN is turned ON in settings, but currently not connected."
            return "VPN is turned OFF."
        return self._run(status)

    @counted_tool(name="disconnect_vpn")
    def disconnect_vpn(self) -> str:
        """Disconnects any active VPN connection."""
        def disconnect() -> str:
            was = self.phone.vpn_connected
            self.phone.vpn_connected, self.phone.vpn_details = False, None
            return self._with_bar("VPN disconnected successfully." if was
                                  else "No active VPN connection to disconnect.")
        return self._run(disconnect)

    @counted_tool(name="check_installed_apps")
    def check_installed_apps(self) -> str:
        """Returns the names of all apps installed on the phone."""
        return self._run(lambda: "The following apps are installed on the phone: "
                         + ", ".join(self.phone.apps))

    @counted_tool(name="check_app_permissions")
    def check_app_permissions(self, app_name: str) -> str:
        """Checks what permissions an app currently has."""
        def permissions() -> str:
            granted = self.phone.apps.get(app_name)
            if granted is None:
                return f"App '{app_name}' not found on this phone."
            allowed = [name for name, on in granted.items() if on]
            if not allowed:
                return f"App '{app_name}' currently has no permissions granted."
            return f"App '{app_name}' has permission for: {', '.join(allowed)}."
        return self._run(permissions)

    @counted_tool(name="grant_app_permission")
    def grant_app_permission(self, app_name: str, permission: str) -> str:
        """Gives an app a permission (lowercase name, e.g. storage or sms)."""
        def grant() -> str:
            granted, permission_name = self.phone.apps.get(app_name), permission.lower()
            if granted is None:
                said = f"Error. App '{app_name}' not found. Cannot grant permission."
            elif permission_name not in granted:
                said = (f"Error. Permission '{permission_name}' not tracked for app "
                        f"'{app_name}', available permissions: {list(granted)}")
            else:
                granted[permission_name] = True
                said = f"Success. Permission '{permission_name}' granted to app '{app_name}'."
            return self._with_bar(said)
        return self._run(grant)

    @counted_tool(name="can_send_mms")
    def can_send_mms(self) -> str:
        """Checks if the default messaging app can send MMS messages."""
        def mms() -> str:
            phone = self.phone
            messaging = phone.apps.get("messaging")
            able = (self._data_works() and phone.technology != "2G"
                    and not (phone.wifi_calling_enabled and phone.wifi_calling_mms_over_wifi)
                    and phone.apn.mmsc_url is not None and messaging is not None
                    and messaging["storage"] and messaging["sms"])
            return ("Your messaging app can send MMS messages." if able
                    else "Your messaging app cannot send MMS messages.")
        return self._run(mms)

    @counted_tool(name="check_payment_request")
    def check_payment_request(self) -> str:
        """Checks if the agent has sent a payment request."""
        def check() -> str:
            request = self.around.payment_request
            if request is None:
                return "No payment request has been made."
            return (f"You have a payment request for bill {request['bill_id']} of "
                    f"{request['amount_due']} USD.")
        return self._run(check)

    @counted_tool(name="make_payment")
    def make_payment(self) -> str:
        """Pays the bill the agent has sent a payment request for."""
        def pay() -> str:
            request = self.around.payment_request
            if request is None:
                return "You do not have a payment request."
            request["paid"] = True
            return (f"Payment of {request['amount_due']} USD has been made for bill "
                    f"{request['bill_id']}.")
        return self._run(pay)
