robustify examples/robustify/pump2/config-oasis.json
