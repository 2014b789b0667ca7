robustify examples/robustify/voting/config-simple.json
