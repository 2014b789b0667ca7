robustify examples/robustify/pump/config-oasis.json --format json
