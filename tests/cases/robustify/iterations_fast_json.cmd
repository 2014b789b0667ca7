robustify examples/robustify/iterations/config-fast.json --format json
