"""Task parameters shared by several tasks, declared once as typed option classes and passed to a task whole.

Why a decorator and not `**kwargs` or a config object: Inspect matches each `-T name=value` against the task
function's `inspect.signature` (`task_create` warns about and drops a name the signature lacks), and logs every
parameter of that signature with its default applied as the eval's `task_args`. A `**kwargs` task would log only
what was passed, and a task taking one config object would need `-T config=...`: either way the names users type
and the task arguments old logs and the leaderboard read would change. Inspect's own tasks, and those of
inspect_evals, spell their parameters out in the signature; with the same data and judge parameters in eight
tasks that meant the same declarations and `Args:` text copied eight times.

`shared_parameters` keeps both of Inspect's contracts: the function it returns has a `__signature__` listing the
task's own parameters and then each shared field as a keyword-only parameter, with the default and annotation
its option class gives it, so `-T` matching, `task_args`, `radiology-tasks list` and `api.check_params` see the
same names and defaults as before; when called, it builds each option object once from the `-T` values (the
classes check them as YAML gave them) and calls the task body with the objects. Apply it under `@task`:

    @task
    @shared_parameters(data=shared(DataOptions), judge=shared(JudgeOptions))
    def vert(prompt: str = "vert", shots: int = 0, *, data: DataOptions, judge: JudgeOptions) -> Task: ...

Tasks that take the same groups and only pass them on (GREEN and VERT) can receive them as one record instead,
`shared_parameters(options=bundle(Record))`, where each field of `Record` is an option class: the `-T` parameters
are the same as with one group per field.

An option class is a frozen dataclass whose fields are declared with `option(default, doc)`: the doc is the
field's one description, which the README's parameter tables (`radiology_tasks.task_docs`) use for every task
that does not document the parameter itself.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, get_type_hints

from radiology_tasks.core.option_fields import DOC as DOC
from radiology_tasks.core.option_fields import option as option
from radiology_tasks.core.option_fields import option_docs as option_docs
from radiology_tasks.core.option_fields import option_names as option_names

_SHARED = "__shared_parameters__"
"""The attribute a decorated task keeps its shared groups under (copied along by `functools.wraps`)."""

T = TypeVar("T")


@dataclass(frozen=True)
class Shared:
    """An option class a task takes, and which of its fields are that task's `-T` parameters.

    The fields a task does not take keep their defaults in the object it receives.
    """

    options: type[Any]
    fields: tuple[str, ...]


def shared(options: type[Any], *, only: Iterable[str] | None = None, without: Iterable[str] = ()) -> Shared:
    """Take `options`'s fields as parameters: all of them, those `only` names, or all but those `without` names.

    Raises:
        ValueError: for a name that is not a field of `options`.
    """
    names = option_names(options)
    chosen = tuple(names if only is None else only)
    dropped = tuple(without)
    unknown = [name for name in (*chosen, *dropped) if name not in names]
    if unknown:
        raise ValueError(f"{options.__name__} has no field {', '.join(unknown)}")
    # Declaration order, whatever order `only` lists them in: the README and `radiology-tasks list` show it.
    return Shared(options, tuple(name for name in names if name in chosen and name not in dropped))


@dataclass(frozen=True)
class Bundle:
    """Option classes a task body receives together, as one record whose fields are the option objects.

    For tasks that take the same option groups and pass them on whole: GREEN and VERT build one judge task from
    theirs. Each field of `record` is an option class, taken whole.
    """

    record: type[Any]
    groups: dict[str, Shared]


def bundle(record: type[Any]) -> Bundle:
    """Take every field of dataclass `record`, each an option class, whole; the body receives one `record`."""
    hints = get_type_hints(record)
    return Bundle(record, {f.name: shared(hints[f.name]) for f in dataclasses.fields(record)})


def _flat(groups: Mapping[str, Shared | Bundle]) -> dict[str, Shared]:
    """Every option group, those of a bundle under ``<bundle>.<field>``, in declaration order."""
    flat: dict[str, Shared] = {}
    for name, group in groups.items():
        if isinstance(group, Bundle):
            flat |= {f"{name}.{member}": value for member, value in group.groups.items()}
        else:
            flat[name] = group
    return flat


def _built(group: Shared | Bundle, values: dict[str, Any]) -> Any:
    """The object a group's keyword-only parameter receives, its fields taken out of `values`."""
    if isinstance(group, Bundle):
        return group.record(**{name: _built(member, values) for name, member in group.groups.items()})
    return group.options(**{field: values.pop(field) for field in group.fields if field in values})


def shared_parameters(**groups: Shared | Bundle) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Give a task the fields of option classes as its `-T` parameters, and its body the built objects.

    Each keyword names a keyword-only parameter of the task body that receives the option object (or, for a
    `bundle`, the record of option objects); its value says which class and fields. See the module docstring for why.

    Raises:
        TypeError: when the body lacks a keyword-only parameter for a group, or a shared field's name is also one
            of the task's own parameters or another group's field.
    """

    def decorate(body: Callable[..., T]) -> Callable[..., T]:
        signature = inspect.signature(body)
        for name in groups:
            parameter = signature.parameters.get(name)
            if parameter is None or parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
                raise TypeError(f"{body.__name__} needs a keyword-only parameter {name!r} for its options")
        own = [p for name, p in signature.parameters.items() if name not in groups]
        taken = {p.name for p in own}
        added: list[inspect.Parameter] = []
        flat = _flat(groups)
        for group in flat.values():
            hints = get_type_hints(group.options)
            defaults = {f.name: f.default for f in dataclasses.fields(group.options)}
            for name in group.fields:
                if name in taken:
                    raise TypeError(f"{body.__name__}: parameter {name!r} is both its own and a shared one")
                taken.add(name)
                added.append(
                    inspect.Parameter(
                        name, inspect.Parameter.KEYWORD_ONLY, default=defaults[name], annotation=hints[name]
                    )
                )

        @functools.wraps(body)
        def task_function(*args: Any, **kwargs: Any) -> T:
            from radiology_tasks.core.report_hook import install_report_hint

            install_report_hint()  # the hint after a run: registered only once one of our tasks is built
            built = {name: _built(group, kwargs) for name, group in groups.items()}
            return body(*args, **kwargs, **built)

        task_function.__signature__ = signature.replace(parameters=[*own, *added])  # type: ignore[attr-defined]
        setattr(task_function, _SHARED, flat)
        return task_function

    return decorate


def shared_docs(task_function: Callable[..., Any]) -> dict[str, str]:
    """The option classes' descriptions of a task's shared parameters (none for a task without them)."""
    groups: dict[str, Shared] = getattr(task_function, _SHARED, {})
    docs: dict[str, str] = {}
    for group in groups.values():
        described = option_docs(group.options)
        docs |= {name: described[name] for name in group.fields if name in described}
    return docs


def logged_options(options: type[T], task_args: Mapping[str, Any]) -> T:
    """The option object a run was built with, from the `-T` arguments its log records (a re-scoring reads a run's
    settings this way): a field the log does not hold, or holds as None, keeps its default, as for a log written
    before the field existed.

    Raises:
        InputError: for a logged value the option class refuses.
    """
    names = option_names(options)
    return options(**{name: task_args[name] for name in names if task_args.get(name) is not None})


def shared_fields(task_function: Callable[..., Any], options: type[Any]) -> tuple[str, ...]:
    """The fields of option class `options` that a task takes as `-T` parameters (none when it takes none)."""
    groups: dict[str, Shared] = getattr(task_function, _SHARED, {})
    return tuple(field for group in groups.values() if group.options is options for field in group.fields)
