robustify examples/robustify/pump3/config-fast.json --max-states 500
