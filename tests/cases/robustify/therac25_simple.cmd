robustify examples/robustify/therac25/config-simple.json
