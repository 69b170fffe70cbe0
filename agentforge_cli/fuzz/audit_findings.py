"""Tool annotations checked against what the tool did, and against each other.

MCP's four hints: ``readOnlyHint`` (changes nothing), ``destructiveHint`` (may delete or
overwrite; meaningful when not read-only), ``idempotentHint`` (a repeated identical call
has no further effect), ``openWorldHint`` (reaches outside systems). A hint not given
takes MCP's default (not read-only, destructive, not idempotent, open-world), which is
not a claim: only hints a tool gives are compared with its behaviour.

Rules (the ``rule`` of each finding):

* ``annotation-contradicted`` — a given hint the behaviour contradicts: error for
  ``readOnlyHint: true``, ``destructiveHint: false`` and ``openWorldHint: false`` (a client
  may approve such a call without asking), warning for ``idempotentHint: true`` (a client
  may retry it);
* ``annotations-inconsistent`` — ``readOnlyHint: true`` with ``destructiveHint: true``
  (error), or a hint that is not ``true``/``false`` (warning);
* ``annotations-missing`` — a tool without any of the four hints (info), with the ones
  its behaviour suggests when it was run;
* ``audit-not-exercised`` — no call of the tool got into its code (warning): it had no
  example, or argument binding refused every one; the audit saw nothing.
"""

from __future__ import annotations

import json
from typing import Any

from agentforge_cli.fuzz.audit import Behaviour
from agentforge_cli.fuzz.observe import CHANGES, DESTRUCTIVE, Effect, EffectKind
from agentforge_cli.schema.findings import ERROR, INFO, WARNING, Finding, finding

__all__ = ["HINTS", "behaviour_findings", "declared_findings"]

HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
_EVIDENCE = 3
"""Effects named per finding."""


def _given(annotations: dict[str, Any] | None) -> dict[str, Any]:
    return {key: value for key, value in (annotations or {}).items() if key in HINTS}


def declared_findings(tool: str, annotations: dict[str, Any] | None, *, served: bool
                      ) -> list[Finding]:
    """What the annotations alone show: hints that contradict each other or are not
    booleans, and (for an MCP tool, which the audit cannot run) missing hints."""
    given = _given(annotations)
    found = [finding(tool, "annotations-inconsistent", WARNING,
                     f"{key} is {json.dumps(value)}, expected true or false; fix the "
                     "annotation (clients may read it either way)")
             for key, value in given.items() if not isinstance(value, bool)]
    if given.get("readOnlyHint") is True and given.get("destructiveHint") is True:
        found.append(finding(tool, "annotations-inconsistent", ERROR,
                             "declared readOnlyHint: true and destructiveHint: true; a "
                             "read-only tool cannot be destructive: drop one of them"))
    if served and not given:
        found.append(finding(tool, "annotations-missing", INFO,
                             "no annotations (readOnlyHint, destructiveHint, idempotentHint, "
                             "openWorldHint): MCP clients treat it as destructive and "
                             "open-world; declare them in the server"))
    return found


def behaviour_findings(behaviour: Behaviour, annotations: dict[str, Any] | None
                       ) -> list[Finding]:
    """The given hints the behaviour contradicts, and the hints to declare when none is."""
    tool, given = behaviour.name, _given(annotations)
    if not behaviour.reached:
        count = behaviour.examples
        why = (f"none of its {count} example{'' if count == 1 else 's'} got past argument "
               "binding" if count else "it had no example to run")
        if behaviour.stopped:
            why += f" ({behaviour.stopped})"
        return [finding(tool, "audit-not-exercised", WARNING,
                        f"{why}, so nothing it does was seen; give it recorded calls "
                        "(--calls) that reach its code")]
    found = []
    checks = (("readOnlyHint", True, CHANGES, ERROR),
              ("destructiveHint", False, DESTRUCTIVE, ERROR),
              ("openWorldHint", False, frozenset({EffectKind.NETWORK}), ERROR))
    for key, claim, kinds, level in checks:
        evidence = behaviour.of(kinds)
        if given.get(key) is claim and evidence:
            found.append(finding(tool, "annotation-contradicted", level,
                                 f"declared {key}: {json.dumps(claim)} but "
                                 f"{_evidence(evidence)}; {_advice(key, claim)}"))
    if given.get("idempotentHint") is True and behaviour.repeat is not None:
        found.append(finding(tool, "annotation-contradicted", WARNING,
                             f"declared idempotentHint: true but {behaviour.repeat}; "
                             f"{_advice('idempotentHint', True)}"))
    if not given:
        suggested = json.dumps(behaviour.inferred())
        found.append(finding(tool, "annotations-missing", INFO,
                             f"no annotations; from what it did on {behaviour.examples} "
                             f"example{'' if behaviour.examples == 1 else 's'}, declare "
                             f"@tool(annotations={suggested})"))
    return found


def _evidence(effects: list[Effect]) -> str:
    shown = "; ".join(effect.text for effect in effects[:_EVIDENCE])
    more = len(effects) - _EVIDENCE
    return shown + (f" (and {more} more)" if more > 0 else "")


def _advice(key: str, claim: bool) -> str:
    trust = ("retry its calls" if key == "idempotentHint"
             else "approve its calls without asking")
    return (f"declare {key}: {json.dumps(not claim)} or change the tool (clients may "
            f"{trust} on the strength of the annotation)")
