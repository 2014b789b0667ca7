robustify examples/robustify/oyster/config-simple.json
