robustify examples/robustify/oyster/config-oasis.json
