"""Checks for `-T` task parameters, each failing with a one-line `InputError` that names the parameter.

`inspect eval` reads every `-T name=value` as YAML, so the task function receives whatever YAML made of the
text: `-T limit=abc` arrives as the string "abc", `-T limit=1.5` as a float, `-T data=a,b.jsonl` as a list.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal, overload

from radiology_tasks.core.errors import InputError

_TRUE = {"true", "yes", "on"}
_FALSE = {"false", "no", "off"}


@overload
def int_param(name: str, value: object, *, minimum: int | None = None, required: Literal[True]) -> int: ...


@overload
def int_param(name: str, value: object, *, minimum: int | None = None, required: bool = False) -> int | None: ...


def int_param(name: str, value: object, *, minimum: int | None = None, required: bool = False) -> int | None:
    """A whole-number parameter; None (not given, or an empty `-T name=`) stays None unless `required`.

    Args:
        name: The parameter, as the user types it after `-T`.
        value: What the task received.
        minimum: The smallest value allowed, if any.
        required: None is refused too, for parameters whose default is a number.

    Raises:
        InputError: for anything but a whole number (a bool, 1.5, "abc"), or one below `minimum`.
    """
    if value is None and not required:
        return None
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and re.fullmatch(r"\s*[+-]?[0-9]+\s*", value):
        number = int(value)
    if number is None:
        raise InputError(f"-T {name} must be a whole number, got {value!r}")
    if minimum is not None and number < minimum:
        raise InputError(f"-T {name} must be at least {minimum}, got {number}")
    return number


def bool_param(name: str, value: object) -> bool:
    """A true/false parameter: a bool, or the words true/false (also yes/no, on/off) in any case.

    Raises:
        InputError: for anything else, including None and numbers.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise InputError(f"-T {name} must be true or false, got {value!r}")


def choice_param(name: str, value: object, choices: Sequence[str]) -> str:
    """A parameter that must be one of `choices`, compared exactly.

    Raises:
        InputError: naming the allowed values when `value` is not one of them.
    """
    if isinstance(value, str) and value in choices:
        return value
    raise InputError(f"-T {name} must be one of {', '.join(choices)}; got {value!r}")


def text_param(name: str, value: object) -> str | None:
    """A text parameter (a file, dataset name or revision); None (not given) stays None.

    YAML reads an all-digit value such as a short commit hash as a number; it is turned back into the
    digits the user typed.

    Raises:
        InputError: for a list (YAML splits unquoted commas), a float, a bool or anything else not text.
    """
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, list):
        raise InputError(
            f"-T {name} must be one value, got the list {value!r}; quote a value that holds commas: -T {name}=\"'a,b'\""
        )
    raise InputError(f"-T {name} must be text, got {value!r}; quote it to keep it as typed: -T {name}=\"'...'\"")
