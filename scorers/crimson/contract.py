"""CRIMSON's answer format: its field names, label values and weights, and the output contract a judge is held to.

The judge answers one JSON object, the field names and label values being those of the authors' public code
(`crimson-score` 0.2.0, ``CRIMSON/prompt_parts.py``), so the authors' fine-tuned judge is read as it answers:

    {"reference_findings": [{"id": "R1", "finding": "...", "clinical_significance": "urgent"}, ...],
     "predicted_findings": [{"id": "P1", "finding": "...", "clinical_significance": "benign_expected"}, ...],
     "matched_findings": [{"ref_id": "R1", "pred_id": "P1"}, ...],
     "errors": {"false_findings": ["P2"], "missing_findings": ["R2"],
                "attribute_errors": [{"ref_id": "R1", "pred_id": "P1", "severity": "significant",
                                      "error_types": ["location"], "explanation": "..."}]}}

The GBNF grammar admits only answers the reader accepts (`scorers.crimson.reading`), in one canonical numbering:
reference and candidate ids run R1, R2, ... and P1, P2, ...; the matches are R1-P1, ..., Rk-Pk; the remaining
candidate findings are the false findings and the remaining reference findings the missing ones, in order; and
attribute errors name one of the k pairs. Ids are labels, so this numbering changes no score; what it leaves out
is one reference finding matched by several candidate findings, which a judge under the grammar reports as one
match. The grammar branches on the number of findings as they are written (after each finding, either the list
closes or the next id follows) and on k, so the rest of the answer knows them; at most `MAX_FINDINGS` findings on
each side. Judges held to the JSON schema instead (vLLM, other providers) number freely; the reader checks
consistency either way.

Free text (finding, explanation) is printable ASCII without quotes or backslashes under the grammar, so the
longest answer costs one token a character; the reader accepts any JSON string.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from radiology_tasks.core.contract import ASCII_TOKENS_PER_CHAR, BUDGET_MARGIN, OutputContract
from radiology_tasks.scorers.gbnf import Piece, Rule, choice, grammar, literal, sequence
from radiology_tasks.scorers.json_gbnf import Spacing, json_array, json_list, json_object, json_value, prose_string

SIGNIFICANCE_WEIGHTS: dict[str, float] = {
    "urgent": 1.0,
    "actionable_not_urgent": 0.5,
    "not_actionable_not_urgent": 0.25,
    "benign_expected": 0.0,
}
"""Each clinical significance label and the weight of a finding that carries it."""

ATTRIBUTE_SEVERITY_WEIGHTS: dict[str, float] = {"significant": 0.5, "negligible": 0.0}
"""Each attribute-error severity and its weight in the partial credit of a matched finding."""

ERROR_TYPES: tuple[str, ...] = (
    "location",
    "severity",
    "descriptor",
    "measurement",
    "certainty",
    "unspecific",
    "overinterpretation",
    "temporal",
)
"""The attribute error types, in the authors' order."""

TOP_KEYS = ("reference_findings", "predicted_findings", "matched_findings", "errors")
ERROR_KEYS = ("false_findings", "missing_findings", "attribute_errors")
FINDING_KEYS = ("id", "finding", "clinical_significance")
MATCH_KEYS = ("ref_id", "pred_id")
ATTRIBUTE_KEYS = ("ref_id", "pred_id", "severity", "error_types", "explanation")

MAX_FINDINGS = 8
"""Most findings the grammar lets a constrained judge list for each report."""

MAX_ATTRIBUTE_ERRORS = 8
"""Most attribute errors the grammar admits."""

MAX_TYPES_PER_ERROR = 3
"""Most error types one attribute error may name under the grammar."""

FINDING_CHARS = 80
"""Longest finding text under the grammar."""

EXPLANATION_CHARS = 80
"""Longest attribute-error explanation under the grammar."""

SPACING = Spacing(2)
"""Up to two whitespace characters after ``{``, ``[``, ``:`` and ``,`` and before ``}`` and ``]``."""

PROSE_PATTERN = "^[ !#-\\[\\]-~]*$"
"""The JSON schema form of the grammar's free text: printable ASCII without the quote and the backslash."""

_WS = SPACING.rule.ref
_SIGNIFICANCE = Rule("significance", choice(*(json_value(label) for label in SIGNIFICANCE_WEIGHTS)))
_SEVERITY = Rule("severity", choice(*(json_value(label) for label in ATTRIBUTE_SEVERITY_WEIGHTS)))
_TYPE = Rule("error-type", choice(*(json_value(name) for name in ERROR_TYPES)))
_TYPES = Rule("error-types", choice(*(json_array([_TYPE.ref] * n, SPACING) for n in range(1, MAX_TYPES_PER_ERROR + 1))))


def _finding(prefix: str, number: int) -> Rule:
    return Rule(
        f"finding-{prefix}{number}",
        json_object(
            [
                ("id", json_value(f"{prefix}{number}")),
                ("finding", prose_string(FINDING_CHARS, min_length=1)),
                ("clinical_significance", _SIGNIFICANCE.ref),
            ],
            SPACING,
        ),
    )


def _key(name: str) -> Piece:
    """``"name":`` and the whitespace after it."""
    return sequence(json_value(name), literal(":"), _WS)


class _Builder:
    """The grammar's rules, each made once and named by the finding counts it depends on."""

    def __init__(self, max_findings: int, max_attribute_errors: int) -> None:
        self.rules: dict[str, Rule] = {}
        self.max_findings = max_findings
        self.max_attribute_errors = max_attribute_errors

    def add(self, rule: Rule) -> Piece:
        self.rules.setdefault(rule.name, rule)
        return rule.ref

    def findings(self, prefix: str, tag: str, after: Callable[[int], Piece]) -> Piece:
        """A finding list of `prefix` ids in order, each count followed by `after(count)`; `tag` names its rules."""

        def closed(count: int) -> Piece:
            return sequence(_WS, literal("]"), after(count))

        def written(count: int) -> Piece:
            name = f"{tag}-{prefix}{count}"
            if count == self.max_findings:
                body = closed(count)
            else:
                more = sequence(literal(","), _WS, self.add(_finding(prefix, count + 1)), written(count + 1))
                body = choice(closed(count), more)
            return self.add(Rule(name, body))

        first = sequence(_WS, self.add(_finding(prefix, 1)), written(1))
        return sequence(literal("["), choice(closed(0), first))

    def rest(self, n: int, m: int) -> Piece:
        """The answer after both finding lists, for `n` reference and `m` candidate findings.

        The matches are R1-P1, ..., Rk-Pk for some k; the other candidate findings are false and the other
        reference findings missing, and attribute errors name one of the k pairs.
        """
        name = f"rest-{n}-{m}"
        if name not in self.rules:
            options = [sequence(self.matched(k), self.errors(n, m, k)) for k in range(min(n, m) + 1)]
            self.add(Rule(name, sequence(literal(","), _WS, _key("matched_findings"), choice(*options))))
        return self.rules[name].ref

    def matched(self, k: int) -> Piece:
        pairs = [
            self.add(
                Rule(
                    f"pair-{i}",
                    json_object([("ref_id", json_value(f"R{i}")), ("pred_id", json_value(f"P{i}"))], SPACING),
                )
            )
            for i in range(1, k + 1)
        ]
        return self.add(Rule(f"matched-{k}", json_array(pairs, SPACING)))

    def attributes(self, k: int) -> Piece:
        if k == 0:
            return json_array([], SPACING)
        name = f"attributes-{k}"
        if name not in self.rules:
            errors = [
                self.add(
                    Rule(
                        f"attribute-{i}",
                        json_object(
                            [
                                ("ref_id", json_value(f"R{i}")),
                                ("pred_id", json_value(f"P{i}")),
                                ("severity", _SEVERITY.ref),
                                ("error_types", _TYPES.ref),
                                ("explanation", prose_string(EXPLANATION_CHARS, min_length=1)),
                            ],
                            SPACING,
                        ),
                    )
                )
                for i in range(1, k + 1)
            ]
            one = self.add(Rule(f"attribute-of-{k}", choice(*errors)))
            self.add(Rule(name, json_list(one, self.max_attribute_errors, SPACING)))
        return self.rules[name].ref

    def errors(self, n: int, m: int, k: int) -> Piece:
        errors = json_object(
            [
                ("false_findings", json_array([json_value(f"P{j}") for j in range(k + 1, m + 1)], SPACING)),
                ("missing_findings", json_array([json_value(f"R{j}") for j in range(k + 1, n + 1)], SPACING)),
                ("attribute_errors", self.attributes(k)),
            ],
            SPACING,
        )
        body = sequence(literal(","), _WS, _key("errors"), errors, _WS, literal("}"))
        return self.add(Rule(f"errors-{n}-{m}-{k}", body))


def _answer_grammar(max_findings: int, max_attribute_errors: int) -> tuple[Piece, list[Rule]]:
    builder = _Builder(max_findings, max_attribute_errors)

    def predicted(n: int) -> Piece:
        findings = builder.findings("P", f"given-{n}", lambda m: builder.rest(n, m))
        return sequence(literal(","), _WS, _key("predicted_findings"), findings)

    def refs(n: int) -> Piece:
        return builder.add(Rule(f"predicted-after-{n}", predicted(n)))

    root = sequence(literal("{"), _WS, _key("reference_findings"), builder.findings("R", "listed", refs))
    fixed = [_SIGNIFICANCE, _SEVERITY, _TYPE, _TYPES, SPACING.rule]
    return root, [*builder.rules.values(), *fixed]


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _text(max_length: int) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": max_length, "pattern": PROSE_PATTERN}


def _json_schema() -> dict[str, Any]:
    def findings(prefix: str) -> dict[str, Any]:
        return {
            "type": "array",
            "items": _object(
                {
                    "id": {"type": "string", "pattern": f"^{prefix}[1-9][0-9]*$"},
                    "finding": _text(FINDING_CHARS),
                    "clinical_significance": {"type": "string", "enum": list(SIGNIFICANCE_WEIGHTS)},
                }
            ),
        }

    ref_id = {"type": "string", "pattern": "^R[1-9][0-9]*$"}
    pred_id = {"type": "string", "pattern": "^P[1-9][0-9]*$"}
    return _object(
        {
            "reference_findings": findings("R"),
            "predicted_findings": findings("P"),
            "matched_findings": {"type": "array", "items": _object({"ref_id": ref_id, "pred_id": pred_id})},
            "errors": _object(
                {
                    "false_findings": {"type": "array", "items": pred_id},
                    "missing_findings": {"type": "array", "items": ref_id},
                    "attribute_errors": {
                        "type": "array",
                        "items": _object(
                            {
                                "ref_id": ref_id,
                                "pred_id": pred_id,
                                "severity": {"type": "string", "enum": list(ATTRIBUTE_SEVERITY_WEIGHTS)},
                                "error_types": {
                                    "type": "array",
                                    "items": {"type": "string", "enum": list(ERROR_TYPES)},
                                },
                                "explanation": _text(EXPLANATION_CHARS),
                            }
                        ),
                    },
                }
            ),
        }
    )


def crimson_contract(
    max_findings: int = MAX_FINDINGS, max_attribute_errors: int = MAX_ATTRIBUTE_ERRORS
) -> OutputContract:
    """The output contract, its grammar admitting up to `max_findings` findings a side and `max_attribute_errors`
    attribute errors (`CONTRACT` uses the module's bounds; tests build small ones to read the grammar whole)."""
    if max_findings < 1 or max_attribute_errors < 1:
        raise ValueError("the grammar needs room for at least one finding and one attribute error")
    root, rules = _answer_grammar(max_findings, max_attribute_errors)
    tokens = math.ceil(root.max_chars * ASCII_TOKENS_PER_CHAR) + 1
    return OutputContract(
        name="crimson",
        max_chars=root.max_chars,
        max_tokens=math.ceil(tokens * BUDGET_MARGIN),
        tokens_per_char=ASCII_TOKENS_PER_CHAR,
        gbnf=grammar(root, rules),
        json_schema=_json_schema(),
    )


CONTRACT = crimson_contract()
"""The output contract of the CRIMSON judge (GBNF grammar and JSON schema, no regex: the grammar's branching on
finding counts would spell the answer out once per count pair)."""
