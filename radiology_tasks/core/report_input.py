"""What the model under test is shown when it writes a report (never the reference)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai.model import ChatMessageUser, Content, ContentImage, ContentText
from inspect_ai.util import materialize_media

from radiology_tasks.core.records import ReportPair
from radiology_tasks.templates import load_template, render

TEMPLATE = "generate_report"


_STUDY_FIELDS = ("section", "modality", "anatomy", "language", "age", "sex", "indication", "comparison")
"""The pair's fields the prompt shows as the data gives them (None: left out), under their own names."""


def _variables(pair: ReportPair) -> dict[str, Any]:
    prior = pair.prior
    return {
        **{name: getattr(pair, name) for name in _STUDY_FIELDS},
        "findings": pair.metadata.get("findings"),
        "n_images": len(pair.images),
        "views": any(view is not None for view in pair.views),
        "prior_report": prior.report if prior else None,
        "n_prior_images": len(prior.images) if prior else 0,
    }


def generation_prompt(pair: ReportPair) -> str:
    """The text instruction for writing the report of `pair`'s study: the section(s) asked for, the study and
    patient as the data gives them (what it leaves out is left out), and the images to come."""
    return render(TEMPLATE, **_variables(pair))


def labelled(pair: ReportPair) -> bool:
    """Whether each image is introduced by a line of text: when a view is known, or prior images must be told
    apart from the study's own. Otherwise the images follow the instruction directly."""
    return any(view is not None for view in pair.views) or bool(pair.prior and pair.prior.images)


def image_sequence(pair: ReportPair) -> list[tuple[str | None, str]]:
    """The images in the order they are sent, the study's own first, each with the line introducing it (None
    when the images are not labelled, see `labelled`)."""
    own = [(image, pair.views[n] if pair.views else None) for n, image in enumerate(pair.images)]
    prior = [(image, None) for image in (pair.prior.images if pair.prior else [])]
    if not labelled(pair):
        return [(None, image) for image, _ in own]
    template: Any = load_template(TEMPLATE).make_module(_variables(pair))  # its macros are attributes
    label = template.image_label
    return [
        *((label("this", n, len(own), view), image) for n, (image, view) in enumerate(own, start=1)),
        *((label("prior", n, len(prior), None), image) for n, (image, _) in enumerate(prior, start=1)),
    ]


async def generation_messages(pair: ReportPair) -> list[ChatMessageUser]:
    """The user message for writing the report: the instruction, then the study's images, then the prior
    study's, each introduced by its line where there is one (`image_sequence`).

    Image files come from the user's own data file, so they are trusted and inlined as data URIs.

    Raises:
        FileNotFoundError: an image listed for the sample does not exist (the loader checks them all before the
            run, see `radiology_tasks.core.study_images`; this holds if one is removed while it runs).
    """
    content: list[Content] = [ContentText(text=generation_prompt(pair))]
    for label, image in image_sequence(pair):
        if "://" not in image and not Path(image).is_file():
            raise FileNotFoundError(f"sample '{pair.id}', field 'images': no such file {image}")
        if label is not None:
            content.append(ContentText(text=str(label)))
        content.append(ContentImage(image=await materialize_media(image)))
    return [ChatMessageUser(content=content)]
