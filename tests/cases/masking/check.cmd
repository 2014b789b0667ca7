check --verbose examples/masking/memory3.yaml examples/masking/brp-n5-m5.yaml
