report tests/cases/reliability/report-picture-bad.json
