"""Constants shared by the command-line tests (imported as ``cli_support``)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRANSCRIPTS = ROOT / "sample_tools" / "transcripts"
CRM = "sample_tools.crm:CrmTools"
TABLE_LIST = (
    "[queryCustomer] 按客户名查询客户信息\n"
    "  parameters: { name: string (required), limit: integer (required) }\n"
)
