robustify examples/robustify/pump/config-simple.json
