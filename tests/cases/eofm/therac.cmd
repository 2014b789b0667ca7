robustness examples/robustness/therac/eofm.yaml
