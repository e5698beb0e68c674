"""The one data model for report pairs, shared by every loader, task and scorer."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_serializer, field_validator, model_validator

ErrorCategory = Literal["a", "b", "c", "d", "e", "f"]
"""The six clinically significant error categories of the ReXVal annotation protocol: the vocabulary in which
experts' error counts are given in the data, and which any metric or data-making step may count or plant."""
Section = Literal["findings", "impression", "findings_impression"]
"""The report section(s) a reference holds, and so what the model under test is asked to write."""
SECTIONS: tuple[Section, ...] = ("findings", "impression", "findings_impression")
ERROR_CATEGORIES: tuple[ErrorCategory, ...] = ("a", "b", "c", "d", "e", "f")

CATEGORY_NAMES: dict[ErrorCategory, str] = {
    "a": "False report of a finding in the candidate",
    "b": "Missing a finding present in the reference",
    "c": "Misidentification of a finding's anatomic location/position",
    "d": "Misassessment of the severity of a finding",
    "e": "Mentioning a comparison that isn't in the reference",
    "f": "Omitting a comparison detailing a change from a prior study",
}

# What each category means, the only copy of this text: every template sees it as ``error_type_descriptions``,
# and the judge prompts print it when rendered with ``error_descriptions=True``.
ERROR_TYPE_DESCRIPTIONS: dict[ErrorCategory, str] = {
    "a": (
        "The candidate states a finding, device or abnormality that the reference does not "
        "contain, or asserts the opposite of what the reference says (the reference says there "
        "is no pneumothorax, the candidate reports a small one)."
    ),
    "b": (
        "A finding stated in the reference, including a clinically relevant negative, is absent "
        "from the candidate (the reference describes a 6 mm lung nodule, the candidate never "
        "mentions it)."
    ),
    "c": (
        "The candidate reports the right finding in the wrong place: wrong side, lobe, segment, "
        "level or vascular territory, or a misplaced device tip (a left lower lobe opacity "
        "reported in the right lower lobe)."
    ),
    "d": (
        "The candidate reports the right finding with the wrong size, extent, grade or acuity "
        "(a large effusion called small, an acute fracture called chronic)."
    ),
    "e": (
        "The candidate describes a change since an earlier study, or a comparison with one "
        "(new, increased, improved, unchanged), that the reference does not make."
    ),
    "f": (
        "The reference describes how a finding changed since an earlier study and the candidate "
        "reports the finding without that change."
    ),
}


def not_blank(message: str) -> AfterValidator:
    """The check of a text field that refuses a value of only white space with `message` (None passes).

    ``Annotated[str | None, not_blank("candidate report is empty")]`` as the field's type.
    """

    def check(value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError(message)
        return value

    return AfterValidator(check)


class _CategoryCounts(BaseModel):
    """What error counts per category (a)-(f) have in common, whole or averaged."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @property
    def total(self) -> Any:
        """Sum over all six categories."""
        return sum(self.as_dict().values())

    def as_dict(self) -> dict[str, Any]:
        """Counts keyed by category letter, in (a)-(f) order."""
        return {c: getattr(self, c) for c in ERROR_CATEGORIES}


class ErrorCounts(_CategoryCounts):
    """Counts of errors for the six categories (a)-(f)."""

    a: int = Field(default=0, ge=0)
    b: int = Field(default=0, ge=0)
    c: int = Field(default=0, ge=0)
    d: int = Field(default=0, ge=0)
    e: int = Field(default=0, ge=0)
    f: int = Field(default=0, ge=0)


class MeanErrorCounts(_CategoryCounts):
    """Error counts per category (a)-(f) averaged over several raters, so possibly fractional (ReXVal).

    Each mean is held exactly, as a `Fraction` whose denominator divides the number of raters: means of equal
    rater totals then compare equal and add up exactly, where floats (``4/6 + 6/6`` against ``5/6 + 5/6``)
    would differ in their last bit. They are written out (``model_dump``, JSON) as floats, as logs always held
    them; `ExpertAnnotation` reads such floats back to the exact multiple of 1 / raters they stand for.
    """

    a: Fraction = Field(default=Fraction(0), ge=0)
    b: Fraction = Field(default=Fraction(0), ge=0)
    c: Fraction = Field(default=Fraction(0), ge=0)
    d: Fraction = Field(default=Fraction(0), ge=0)
    e: Fraction = Field(default=Fraction(0), ge=0)
    f: Fraction = Field(default=Fraction(0), ge=0)

    @field_serializer(*ERROR_CATEGORIES)
    def _as_float(self, value: Fraction) -> float:
        return float(value)


RATER_MEAN_TOLERANCE = 1e-6
"""How far a mean written as a decimal or float may lie from the multiple of 1 / raters it stands for."""


def exact_rater_mean(value: Any, raters: int) -> Any:
    """`value`, a mean over `raters` raters, as the exact `Fraction` it stands for (`value` unchanged when no
    multiple of 1 / raters lies within `RATER_MEAN_TOLERANCE` of it, or it is not a number, for validation to
    refuse)."""
    if isinstance(value, bool) or not isinstance(value, int | float | Fraction):
        return value
    try:
        scaled = Fraction(value) * raters
    except (ValueError, OverflowError):  # NaN or infinity
        return value
    whole = round(scaled)
    return Fraction(whole, raters) if abs(scaled - whole) <= RATER_MEAN_TOLERANCE else value


class ExpertAnnotation(BaseModel):
    """What radiologists said about a candidate report.

    Error counts are whole numbers, except where they are the mean over `raters` radiologists: then each
    count is a multiple of 1 / `raters`, held exactly (`MeanErrorCounts`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    score: float | None = None
    scale_min: float = 0.0
    scale_max: float = 1.0
    significant: ErrorCounts | MeanErrorCounts | None = None
    insignificant: ErrorCounts | MeanErrorCounts | None = None
    raters: int | None = Field(default=None, ge=1)

    @model_validator(mode="before")
    @classmethod
    def _exact_means(cls, data: Any) -> Any:
        """Read rater means given as floats (a log, a flat file) as the exact fractions they stand for."""
        if not isinstance(data, Mapping):
            return data
        raters = data.get("raters")
        if isinstance(raters, bool) or not isinstance(raters, int) or raters < 1:
            return data
        exact = dict(data)
        for side in ("significant", "insignificant"):
            counts = data.get(side)
            if isinstance(counts, Mapping):
                exact[side] = {key: exact_rater_mean(value, raters) for key, value in counts.items()}
        return exact

    @model_validator(mode="after")
    def _counts_fit_raters(self) -> ExpertAnnotation:
        for counts in (self.significant, self.insignificant):
            if counts is None:
                continue
            for category, value in counts.as_dict().items():
                if (Fraction(value) * (self.raters or 1)).denominator != 1:
                    where = f"the mean over {self.raters} raters" if self.raters else "a whole number"
                    raise ValueError(f"error count {float(value):g} of category ({category}) is not {where}")
        return self

    @model_validator(mode="after")
    def _score_within_scale(self) -> ExpertAnnotation:
        if self.scale_max <= self.scale_min:
            raise ValueError(f"scale_max ({self.scale_max}) must exceed scale_min ({self.scale_min})")
        if self.score is not None and not self.scale_min <= self.score <= self.scale_max:
            raise ValueError(f"expert score {self.score} lies outside its scale [{self.scale_min}, {self.scale_max}]")
        return self

    @property
    def normalized_score(self) -> float | None:
        """The expert score mapped onto [0, 1] (None when there is no score)."""
        if self.score is None:
            return None
        return (self.score - self.scale_min) / (self.scale_max - self.scale_min)


class QAPair(BaseModel):
    """A question about one attribute of one finding in the reference, with the reference's answer (the data's
    ``qa`` list, which a question-answering metric asks of the candidate).

    ``attribute_type`` is the kind of answer: a quantity (``numeric``), a value from a set of terms
    (``categorical``), a place in the body (``location``), whether the finding is there at all
    (``existence``), or ``other``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str
    answer: str
    finding: str | None = None
    attribute: str | None = None
    attribute_type: Literal["numeric", "categorical", "location", "existence", "other"] | None = None


class PriorStudy(BaseModel):
    """The patient's earlier study, as the data gives it: its images, its report, or both.

    A generator that compares with a prior (MAIRA-2 and its like) is shown these, marked as the prior study.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    images: list[str] = Field(default_factory=list)
    report: str | None = None

    @model_validator(mode="after")
    def _not_empty(self) -> PriorStudy:
        if not self.images and not (self.report and self.report.strip()):
            raise ValueError("a prior study needs its images or its report")
        return self


class ReportPair(BaseModel):
    """A reference report, optionally a candidate report, and what is known about them.

    What the model under test is given to write its report (never the reference): the study's `modality`,
    `anatomy` and `language`; the patient's `age` and `sex`, the `indication` and the `comparison` as the data
    states them; `findings` text when the data has it (in `metadata`); the study's `images`, each with its view
    in `views` where the data names one (an empty list when it names none), and `key_image`, the one image a
    single-image generator is given; the `prior` study; and the `section` it is asked to write, the one the
    reference holds.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    reference: Annotated[str, not_blank("reference report is empty")]
    candidate: Annotated[str | None, not_blank("candidate report is empty")] = None
    modality: str | None = None
    anatomy: str | None = None
    language: str = "en"
    indication: str | None = None
    images: list[str] = Field(default_factory=list)
    expert: ExpertAnnotation | None = None
    qa: list[QAPair] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    section: Section = "findings"
    age: str | None = None
    sex: str | None = None
    comparison: str | None = None
    views: list[str | None] = Field(default_factory=list)
    key_image: str | None = None
    prior: PriorStudy | None = None

    @field_validator("id")
    @classmethod
    def _id_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("id is empty")
        return value.strip()

    @model_validator(mode="after")
    def _views_and_key_fit_images(self) -> ReportPair:
        if self.views and len(self.views) != len(self.images):
            raise ValueError(f"{len(self.views)} views given for {len(self.images)} images; give one per image")
        if self.key_image is not None and self.key_image not in self.images:
            raise ValueError(f"the key image {self.key_image} is not one of the study's images")
        return self
