"""Reading what users hand the project, within bounds and with one-line errors: study configs,
model profiles and bundles (`reading`, `strict_schema`), custom classes (`classes`), predictions
files (`predictions`, `prediction_files`) and what every writer can store (`storable`)."""
