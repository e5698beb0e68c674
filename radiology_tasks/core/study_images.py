"""The images the model under test is sent for each study: all of them or one, each checked to exist first.

A generator that was sent fewer images than the data lists writes its report from less than the reference's author
saw, and a run that looks complete would hide it. So before any request is made, every image of every study the
run generates for must exist (`-T missing_images=error`, the default, stops naming the study and the file), or
is left out of that study and named in the log (`-T missing_images=omit`). `-T images=key` sends one image per
study, for generators that take a single image, chosen as ReXrank chooses it: the study's key image where the
data names one, else its frontal view, else its only image.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from radiology_tasks.core.data_options import DataOptions
from radiology_tasks.core.records import PriorStudy, ReportPair
from radiology_tasks.core.tables import DataError

FRONTAL = re.compile(r"frontal|antero-?posterior|postero-?anterior|\b(?:AP|PA)\b", re.IGNORECASE)
"""View labels of a frontal chest radiograph, as ReXrank's test sets write them (`Frontal`, `antero-posterior`,
`postero-anterior`, CheXpert Plus's `AP` / `PA`)."""


def key_position(pair: ReportPair) -> int | None:
    """Which of the study's images a single-image generator is sent: the key image, else the first frontal view,
    else the only image (None when the study has no image).

    Raises:
        ValueError: the study has several images and neither a key image nor a frontal view to choose by.
    """
    if not pair.images:
        return None
    if pair.key_image is not None:
        return pair.images.index(pair.key_image)
    frontal = [n for n, view in enumerate(pair.views) if view is not None and FRONTAL.search(view)]
    if frontal:
        return frontal[0]
    if len(pair.images) == 1:
        return 0
    raise ValueError(
        f"{len(pair.images)} images and no key image or frontal view to choose one by; "
        "give a key_image, or views, or send them all (-T images=all)"
    )


def only_key_image(pair: ReportPair) -> ReportPair:
    """The study with its one chosen image (see `key_position`) and no prior images (the prior report stays)."""
    position = key_position(pair)
    if position is None:
        return pair
    views = [pair.views[position]] if pair.views else []
    prior = pair.prior
    if prior is not None and prior.images:
        prior = PriorStudy(report=prior.report) if prior.report else None
    return pair.model_copy(update={"images": [pair.images[position]], "views": views, "prior": prior})


def _exists(image: str) -> bool:
    return "://" in image or Path(image).is_file()


def without_missing(pair: ReportPair) -> tuple[ReportPair, list[dict[str, str]]]:
    """The study without its images whose files do not exist, and one entry per image left out."""
    kept = [n for n, image in enumerate(pair.images) if _exists(image)]
    omitted = [
        {"id": pair.id, "field": "images", "file": pair.images[n]} for n in range(len(pair.images)) if n not in kept
    ]
    update: dict[str, Any] = {
        "images": [pair.images[n] for n in kept],
        "views": [pair.views[n] for n in kept] if pair.views else [],
        "key_image": pair.key_image if pair.key_image is None or _exists(pair.key_image) else None,
    }
    prior = pair.prior
    if prior is not None:
        omitted += [{"id": pair.id, "field": "prior_images", "file": i} for i in prior.images if not _exists(i)]
        images = [image for image in prior.images if _exists(image)]
        update["prior"] = PriorStudy(images=images, report=prior.report) if images or prior.report else None
    return pair.model_copy(update=update), omitted


@dataclass
class StudyImages:
    """What the run sends: the studies with the images chosen and found, and what it records about them."""

    pairs: list[ReportPair]
    choice: str
    on_missing: str
    omitted: list[dict[str, str]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """The log's record (``metadata["data"]["images"]``): the options, the images to be sent over all studies,
        current and prior, and each image left out because its file does not exist."""
        return {
            "choice": self.choice,
            "missing": self.on_missing,
            "images": sum(len(pair.images) for pair in self.pairs),
            "prior_images": sum(len(pair.prior.images) for pair in self.pairs if pair.prior is not None),
            "omitted_count": len(self.omitted),
            "omitted": self.omitted,
        }


def study_images(
    pairs: list[ReportPair],
    options: DataOptions,
    *,
    source: str,
    row_of: Mapping[str, int],
    bad: Callable[[DataError], None],
) -> StudyImages:
    """The studies as the model under test is sent them: the images `options.images` chooses, each checked to
    exist (see the module's docstring).

    Args:
        pairs: The studies, in data order.
        options: `images` and `missing_images`.
        source: The data's name, for errors.
        row_of: The data row of each study's id, for errors.
        bad: What a study that cannot be sent is given to: it raises, or records the study as skipped.
    """
    result = StudyImages([], options.images, options.missing_images)
    for pair in pairs:
        try:
            result.pairs.append(_one_study(pair, options, source, row_of.get(pair.id), result.omitted))
        except DataError as error:
            bad(error)
    return result


def _one_study(
    pair: ReportPair, options: DataOptions, source: str, row: int | None, omitted: list[dict[str, str]]
) -> ReportPair:
    if options.images == "key":
        try:
            pair = only_key_image(pair)
        except ValueError as problem:
            raise DataError(source, row, "images", f"study '{pair.id}': {problem}") from None
    kept, missing = without_missing(pair)
    if missing and options.missing_images == "error":
        first = missing[0]
        raise DataError(
            source,
            row,
            first["field"],
            f"study '{pair.id}': no such image file {first['file']} (-T image_root sets the folder image paths are "
            "relative to; -T missing_images=omit sends the study without it, named in the log)",
        )
    omitted += missing
    return kept
