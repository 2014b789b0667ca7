robustify examples/robustify/therac25/cheaper.yaml
