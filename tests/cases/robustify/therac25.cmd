robustify examples/robustify/therac25/robustify.yaml
