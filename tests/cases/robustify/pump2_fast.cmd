robustify examples/robustify/pump2/robustify.yaml
