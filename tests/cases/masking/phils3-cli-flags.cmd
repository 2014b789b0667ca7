masking tests/cases/masking/phils3-plain.yaml --no-nominal-match -l
