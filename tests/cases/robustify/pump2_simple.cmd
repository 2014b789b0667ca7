robustify examples/robustify/pump2/config-simple.json
