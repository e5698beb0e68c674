"""A small judged set, and every metric of it worked out by hand (used by the arithmetic and the task tests).

Two references, R1 and R2; error types (a) and (b) with N = 1..3, one paraphrase each; a VERT judge. Each
entry is what the judge says: its significant errors per type and its score, ``UNREADABLE`` (no readable
answer) or ``EXCLUDED`` (the variant could not be made: failed its code check every time).

    variant   R1: significant / score              R2: significant / score
    para      none            0.90                 (d) 1           0.70
    a1        (a) 1           0.80                 none            0.70
    a2        none            0.75                 (a) 1           0.75
    a3        (a) 1, (c) 1    0.60                 (a) 2           0.50
    b1        none            0.95                 unreadable
    b2        (a) 1           0.70                 (b) 1           0.60
    b3        excluded                              (b) 2, (d) 1    0.40

Discrimination, over the 10 scored error variants (R1 b3 excluded, R2 b1 unreadable): penalised are R1 a1,
a3, b2 and R2 a2, a3, b2, b3 (a significant error), and R1 a2 (0.75 < 0.90, R1's paraphrase); not penalised
are R1 b1 (0.95 >= 0.90) and R2 a1 (0.70 is not strictly below 0.70). 8 / 10 = 0.8.
Robustness: R1's paraphrase has no significant error, R2's has one: 1 / 2 = 0.5.
Balance: 2 * 0.8 * 0.5 / (0.8 + 0.5) = 0.8 / 1.3.
Monotonicity: complete series are (R1, a) 0.80 >= 0.75 >= 0.60, steady, and (R2, a) 0.70 < 0.75, rising;
(R1, b) and (R2, b) miss a variant. 1 / 2 = 0.5.
Kendall's tau-b of score against N over the 10 scored error variants, x = N, y = score:
(1, .80) (2, .75) (3, .60) (1, .95) (2, .70) (1, .70) (2, .75) (3, .50) (2, .60) (3, .40). Ties in x: 3 + 6 + 3
= 12 pairs; ties in y (.75, .70, .60 twice each): 3 pairs. Concordant: R2 a1 (1, .70) with R1 a2 and R2 a2
(2, .75): 2. Discordant: x=1 against x=2: 4 + 4 + 1 = 9; x=1 against x=3: 9; x=2 against x=3: 3 + 3 + 3 + 2
= 11; 29 in all. Tau-b = (2 - 29) / sqrt((45 - 12) * (45 - 3)).
Count recovery: N=1: 1, 0, 0 (R2 b1 unreadable) -> 1/3; N=2: 0, 1, 1, 1 -> 3/4; N=3: 2, 2, 3 -> 7/3.
Detection F1, count-level (VERT appendix C), injected counts as human counts:
(a): tp 1 (R1 a1) + 1 (R1 a3) + 1 (R2 a2) + 2 (R2 a3) = 5; fp 1 (R1 b2); fn 2 + 2 + 1 + 1 + 1 = 7
(R1 a2, R1 a3, R2 a1, R2 a2, R2 a3); F1 = 2*5 / (2*5 + 1 + 7) = 10/18. Injected (a): 1+2+3 twice = 12.
(b): tp 1 (R2 b2) + 2 (R2 b3) = 3; fp 0; fn 1 (R1 b1) + 2 (R1 b2) + 1 + 1 = 5; F1 = 6 / 11. Injected (b) in
scored variants: 1 + 2 + 2 + 3 = 8.
Excluded: 1, for a failed check.
"""

from __future__ import annotations

import math

UNREADABLE = "unreadable"
EXCLUDED = "excluded"

JUDGED: dict[str, dict[str, tuple[dict[str, int], float] | str]] = {
    "R1": {
        "paraphrase": ({}, 0.90),
        "a1": ({"a": 1}, 0.80),
        "a2": ({}, 0.75),
        "a3": ({"a": 1, "c": 1}, 0.60),
        "b1": ({}, 0.95),
        "b2": ({"a": 1}, 0.70),
        "b3": EXCLUDED,
    },
    "R2": {
        "paraphrase": ({"d": 1}, 0.70),
        "a1": ({}, 0.70),
        "a2": ({"a": 1}, 0.75),
        "a3": ({"a": 2}, 0.50),
        "b1": UNREADABLE,
        "b2": ({"b": 1}, 0.60),
        "b3": ({"b": 2, "d": 1}, 0.40),
    },
}

EXPECTED = {
    "discrimination": 0.8,
    "discrimination_n": 10.0,
    "robustness": 0.5,
    "robustness_n": 2.0,
    "balance": 0.8 / 1.3,
    "monotonicity": 0.5,
    "monotonicity_n": 2.0,
    "monotonicity_kendall_tau": -27 / math.sqrt(33 * 42),
    "judge_count_n1": 1 / 3,
    "judge_count_n1_variants": 3.0,
    "judge_count_n2": 0.75,
    "judge_count_n2_variants": 4.0,
    "judge_count_n3": 7 / 3,
    "judge_count_n3_variants": 3.0,
    "detection_f1_a": 10 / 18,
    "injected_a": 12.0,
    "detection_f1_b": 6 / 11,
    "injected_b": 8.0,
    "excluded": 1.0,
    "excluded_failed_check": 1.0,
    "excluded_invalid_answer": 0.0,
    "excluded_implausible": 0.0,
}
