robustify examples/robustify/pump/config-pareto.json --max-states 700 --format json
