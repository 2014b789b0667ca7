robustify examples/robustify/pump2/config-fast.json --max-states 25000 --format json
