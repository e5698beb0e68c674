"""Make report text safe to place inside a judge prompt.

A candidate report is produced by the system under evaluation, so it may (by accident or on
purpose) contain text that imitates the judge's answer format or closes the tags that delimit it
in the prompt. `neutralize_candidate` rewrites exactly those constructs and leaves the clinical
wording alone.
"""

from __future__ import annotations

import re

# Square brackets are the only thing that makes a line a section header to `parse_assessment`,
# and the only brackets report prose needs are round ones.
_SQUARE_TO_ROUND = str.maketrans("[]", "()")
# A tag such as <candidate_report>, </candidate_report>, <b> or <s>; "<5 mm" is not one.
_TAG = re.compile(r"<(?P<body>/?[A-Za-z_][^<>\n]*)>")
# Chat-template control tokens such as <|im_end|> or <|eot_id|>.
_CONTROL_TOKEN = re.compile(r"<(?P<body>\|[^<>\n]*\|)>")


def neutralize_candidate(text: str) -> str:
    """Rewrite report text so it cannot pose as a verdict section or a prompt delimiter.

    Square brackets become round ones (``[Overall Accuracy Score]:`` reads
    ``(Overall Accuracy Score):``), and the angle brackets of tags and chat control tokens become
    single guillemets (``</candidate_report>`` reads ``‹/candidate_report›``). Everything else,
    including instructions addressed to the judge, is kept verbatim: the prompt tells the judge
    that the candidate is data.
    """
    text = text.translate(_SQUARE_TO_ROUND)
    text = _CONTROL_TOKEN.sub(lambda m: f"‹{m.group('body')}›", text)
    return _TAG.sub(lambda m: f"‹{m.group('body')}›", text)
