robustify examples/robustify/voting/robustify.yaml
