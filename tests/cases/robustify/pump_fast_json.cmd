robustify examples/robustify/pump/config-fast.json --format json
