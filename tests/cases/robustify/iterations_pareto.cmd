robustify examples/robustify/iterations/robustify.yaml
