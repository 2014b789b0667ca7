robustify examples/robustify/therac25/config-oasis.json
