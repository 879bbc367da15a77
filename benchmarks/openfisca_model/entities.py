"""The one entity of the model: a member of the Retirement System."""

from openfisca_core.entities import build_entity

Person = build_entity(
    key="person",
    plural="persons",
    label="A member of the Government Employees Retirement System",
    doc="One member: dates of birth, first entry and separation, service, compensation.",
    is_person=True,
)

entities = [Person]
