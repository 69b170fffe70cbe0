"""Fixed-width numeric aliases: ``Int8`` … ``Int64`` and ``Float32``.

Each is ``Annotated[int | float, FixedWidth(...)]``: the schema gains ``minimum`` and
``maximum`` and binding refuses values outside them (``out of range for Int32``).
Loaded lazily by the package (it imports ``typing``).
"""

from __future__ import annotations

from typing import Annotated

from agentforge_cli.core.declare.params import FixedWidth

__all__ = ["FLOAT32_MAX", "Float32", "Int8", "Int16", "Int32", "Int64"]

FLOAT32_MAX = 3.4028235e38

Int8 = Annotated[int, FixedWidth("Int8", -(2**7), 2**7 - 1)]
Int16 = Annotated[int, FixedWidth("Int16", -(2**15), 2**15 - 1)]
Int32 = Annotated[int, FixedWidth("Int32", -(2**31), 2**31 - 1)]
Int64 = Annotated[int, FixedWidth("Int64", -(2**63), 2**63 - 1)]
Float32 = Annotated[float, FixedWidth("Float32", -FLOAT32_MAX, FLOAT32_MAX)]
