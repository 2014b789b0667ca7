robustify examples/robustify/voting/config-oasis.json
