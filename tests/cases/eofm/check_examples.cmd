check --verbose examples/robustness/therac/eofm_redesign.yaml examples/robustness/therac/eofm_strong_p.yaml
