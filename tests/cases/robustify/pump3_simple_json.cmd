robustify examples/robustify/pump3/config-simple.json --format json
