robustify examples/robustify/therac25/config-fast.json --format json
